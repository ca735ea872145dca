package dev.hetrace.cli;

import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TerminalText;
import java.util.List;
import java.util.function.IntPredicate;

/** The commands' terminal tables and JSON strings: columns padded to their widest cell. */
final class TextTable {
    private TextTable() {}

    /**
     * The rows as lines: each line starts with {@code indent}, cells are two spaces apart and
     * padded to their column's widest cell, to the right for the columns {@code right} says.
     */
    static String render(List<String[]> rows, String indent, IntPredicate right) {
        int columns = 0;
        for (String[] r : rows) {
            columns = Math.max(columns, r.length);
        }
        int[] w = new int[columns];
        rows = rows.stream()
                .map(r -> {
                    String[] e = new String[r.length];
                    for (int c = 0; c < r.length; c++) {
                        e[c] = TerminalText.controls(r[c]); // names from traces: no control byte reaches the terminal
                    }
                    return e;
                })
                .toList();
        for (String[] r : rows) {
            for (int c = 0; c < r.length; c++) {
                w[c] = Math.max(w[c], r[c].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder(indent);
            for (int c = 0; c < r.length; c++) {
                String fill = " ".repeat(w[c] - r[c].length());
                line.append(c == 0 ? "" : "  ").append(right.test(c) ? fill + r[c] : r[c] + fill);
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }

    /** {@code s} as a JSON string. */
    static String quote(String s) {
        return JsonText.quote(s);
    }
}
