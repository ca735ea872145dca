package dev.hetrace.ctf.text;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/** C printf conversions that Java's formatter does differently. */
public final class CFormat {
    private CFormat() {}

    /** {@code printf("%g", v)} as glibc prints it. */
    public static String g(double v) {
        if (Double.isNaN(v)) {
            return (Double.doubleToRawLongBits(v) < 0) ? "-nan" : "nan";
        }
        if (Double.isInfinite(v)) {
            return v < 0 ? "-inf" : "inf";
        }
        if (v == 0) {
            return (Double.doubleToRawLongBits(v) < 0) ? "-0" : "0";
        }
        final int precision = 6;
        BigDecimal exact = new BigDecimal(v);
        BigDecimal rounded = exact.round(new MathContext(precision, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        String s;
        if (exponent < -4 || exponent >= precision) {
            BigDecimal mantissa = rounded.movePointLeft(exponent);
            s = stripZeros(
                    mantissa.setScale(precision - 1, RoundingMode.HALF_EVEN).toPlainString());
            s = s + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
        } else {
            s = stripZeros(rounded.setScale(Math.max(0, precision - 1 - exponent), RoundingMode.HALF_EVEN)
                    .toPlainString());
        }
        return s;
    }

    private static String stripZeros(String s) {
        if (s.indexOf('.') < 0) {
            return s;
        }
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        return s.substring(0, end);
    }
}
