package dev.hetrace.ctf.metadata;

/**
 * A name split into a prefix and a decimal counter ({@code "t123"} is {@code "t"} and 123), the
 * shape of generated names: members {@code f0, f1, ...}, labels, aliases, event names. Runs of
 * such names are stored as (prefix, first number, count) instead of one string each.
 */
record CountedName(String prefix, long number) {
    /** Counters up to 18 digits, so that first + count never overflows. */
    private static final int MAX_DIGITS = 18;

    /** The name as prefix and counter, or null when it does not end with a canonical decimal number. */
    static CountedName of(String name) {
        int end = name.length();
        int i = end;
        while (i > 0 && name.charAt(i - 1) >= '0' && name.charAt(i - 1) <= '9') {
            i--;
        }
        int digits = end - i;
        if (digits == 0 || digits > MAX_DIGITS || (digits > 1 && name.charAt(i) == '0')) {
            return null;
        }
        return new CountedName(name.substring(0, i), Long.parseLong(name, i, end, 10));
    }

    static String name(String prefix, long number) {
        return prefix + number;
    }
}
