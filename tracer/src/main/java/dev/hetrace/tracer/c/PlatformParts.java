package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.Configuration.ClockType;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.FieldType.Member;
import java.util.Arrays;
import java.util.List;

/** What the generated platforms have in common: their data stream type, user clocks and packet opening. */
final class PlatformParts {
    private PlatformParts() {}

    /**
     * The names every platform's files are made of: the configuration's identifier {@code prefix}
     * and {@code file} name prefix, the data stream type served, the platform's identifier prefix
     * ({@code PREFIX_platform_NAME_}), its macro prefix ({@code PREFIX_NAME_}), the tracer context
     * type, the header guard, the user clocks and {@code open_packet}'s extra arguments.
     */
    record Names(
            String prefix,
            String file,
            DataStreamType stream,
            String platform,
            String macro,
            String streamCtx,
            String guard,
            UserClocks clocks,
            OpenArgs open) {

        /**
         * The placeholder names and values of a platform header's template that every platform
         * has (guard, file, platform, stream, stream_ctx, clock_members), then {@code more}.
         */
        String[] header(String... more) {
            return with(
                    more,
                    "guard",
                    guard,
                    "file",
                    file,
                    "platform",
                    platform,
                    "stream",
                    stream.name(),
                    "stream_ctx",
                    streamCtx,
                    "clock_members",
                    clocks.members());
        }

        /**
         * The placeholder names and values of a platform source's template that every platform
         * has (file, platform, prefix, stream, stream_ctx, the clocks' and open_packet's parts),
         * then {@code more}.
         */
        String[] source(String... more) {
            return with(
                    more,
                    "file",
                    file,
                    "platform",
                    platform,
                    "prefix",
                    prefix,
                    "clock_functions",
                    clocks.functions(),
                    "stream",
                    stream.name(),
                    "open_args",
                    open.args(),
                    "open_decls",
                    open.decls(),
                    "clock_init",
                    clocks.init(),
                    "stream_ctx",
                    streamCtx);
        }

        private static String[] with(String[] more, String... common) {
            String[] all = Arrays.copyOf(common, common.length + more.length);
            System.arraycopy(more, 0, all, common.length, more.length);
            return all;
        }
    }

    /** The names of platform {@code name} (as in identifiers: {@code shm_ring}) of {@code config}. */
    static Names names(Configuration config, String name) {
        String p = config.options().identifierPrefix();
        DataStreamType d = stream(config);
        String pp = p + "platform_" + name + "_";
        return new Names(
                p,
                config.options().fileNamePrefix(),
                d,
                pp,
                p.toUpperCase() + name.toUpperCase() + "_",
                "struct " + p + d.name() + "_ctx",
                "_" + p.toUpperCase() + "PLATFORM_" + name.toUpperCase() + "_H",
                userClocks(config, pp),
                openArgs(d));
    }

    /** The data stream type a platform serves: the default one, else the first. */
    static DataStreamType stream(Configuration config) {
        List<DataStreamType> dsts = config.trace().type().dataStreamTypes();
        return config.options()
                .defaultDataStreamTypeName()
                .flatMap(n -> dsts.stream().filter(x -> x.name().equals(n)).findFirst())
                .orElse(dsts.getFirst());
    }

    /**
     * Clocks read through user functions: the members of the platform's {@code funcs} struct,
     * the tracer callbacks that call them (on a context {@code struct PPctx}), and the lines
     * setting those callbacks in {@code cbs}.
     */
    record UserClocks(String members, String functions, String init) {}

    static UserClocks userClocks(Configuration config, String pp) {
        CTemplate t = CTemplate.of("platform-parts.c.in");
        StringBuilder members = new StringBuilder();
        StringBuilder functions = new StringBuilder();
        StringBuilder init = new StringBuilder();
        for (ClockType c : config.trace().type().clockTypes()) {
            String ctype = config.options().clockTypeCTypes().getOrDefault(c.name(), "uint32_t");
            members.append("\t/* Reads clock `")
                    .append(c.name())
                    .append("` (")
                    .append(c.frequency())
                    .append(" Hz) */\n\t")
                    .append(ctype)
                    .append(" (*")
                    .append(c.name())
                    .append("_clock)(void *user_data);\n\n");
            functions.append(t.fill("user-clock-function", "ctype", ctype, "clock", c.name(), "platform", pp));
            init.append("\tcbs.")
                    .append(c.name())
                    .append("_clock_get_value = ")
                    .append(c.name())
                    .append("_clock_get_value;\n");
        }
        return new UserClocks(members.toString(), functions.toString(), init.toString());
    }

    /**
     * The extra packet context members' arguments of {@code open_packet} (platforms have no
     * values for them: zeros and empty strings), and the declarations they need.
     */
    record OpenArgs(String args, String decls) {}

    static OpenArgs openArgs(DataStreamType d) {
        StringBuilder args = new StringBuilder();
        StringBuilder decls = new StringBuilder();
        for (Member m : d.packetContext().members()) {
            if (!TracerApi.PC_FEATURE_MEMBERS.contains(m.name())) {
                args.append(", ").append(LinuxFilePlatform.zero(m.type(), "pc_" + m.name(), decls));
            }
        }
        return new OpenArgs(args.toString(), decls.toString());
    }
}
