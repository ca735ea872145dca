package dev.hetrace.cli;

import dev.hetrace.ctf.write.CtfVersion;
import picocli.CommandLine;

/** {@code --ctf-version 1.8|2}, as users write it. */
final class CtfVersionConverter implements CommandLine.ITypeConverter<CtfVersion> {
    @Override
    public CtfVersion convert(String value) {
        try {
            return CtfVersion.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
