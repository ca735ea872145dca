package dev.hetrace.analysis.index;

import dev.hetrace.analysis.PatternSearch;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * KPTrace's pattern search ({@link PatternSearch}) over an index instead of the traces: the
 * events' order, times and names from the {@code events} table (merged on the reference clock as
 * the search merges the traces: by time, then trace, then each trace's own order), and of the
 * events that are an A or a B only, their {@code --where} fields and CPU
 * ({@code packet_context.cpu_id}) from the event found again by its position
 * ({@link EventFields#EVENT_FUNCTION}). The same occurrences, in the same order, with the same cores and the
 * same ignored counts as {@link PatternSearch#run}.
 */
final class PatternQueries {
    private static final int FIRST = 1;
    private static final int THEN = 2;
    /** The scopes an unprefixed field path is searched in, in {@link dev.hetrace.ctf.api.Event}'s order. */
    private static final List<String> SEARCHED = List.of("payload", "context", "stream_context", "packet_context");

    private PatternQueries() {}

    static PatternSearch.Result run(Connection c, Path folder, List<String> traceNames, PatternSearch.Spec spec)
            throws SQLException {
        String events = IndexTables.parquet(folder, "events").replaceFirst("\\)$", ", file_row_number = true)");
        Pattern first = glob(spec.first());
        Pattern then = glob(spec.then());
        Map<String, Integer> roles = new HashMap<>();
        long count;
        long begin;
        try (Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT DISTINCT name FROM " + events)) {
                while (r.next()) {
                    String name = r.getString(1);
                    int role = (first.matcher(name).matches() ? FIRST : 0)
                            | (then.matcher(name).matches() ? THEN : 0);
                    if (role != 0) {
                        roles.put(name, role);
                    }
                }
            }
            try (ResultSet r = s.executeQuery("SELECT count(time_ns), min(time_ns) FROM " + events)) {
                r.next();
                count = r.getLong(1);
                begin = r.getLong(2);
            }
        }
        List<PatternSearch.Occurrence> found = new ArrayList<>();
        long ignoredFirst = 0;
        long ignoredThen = 0;
        if (!roles.isEmpty()) {
            int w = spec.where().size();
            StringBuilder sql = new StringBuilder("SELECT trace_index, time_ns, name, ")
                    .append("json_extract(j, '$.packet_context.cpu_id')::VARCHAR AS cpu");
            for (String[] cond : spec.where()) {
                sql.append(", ").append(value(cond[0])).append(", ").append(value(cond[1]));
            }
            sql.append(" FROM (SELECT trace_index, time_ns, name::VARCHAR AS name, file_row_number AS n, ")
                    .append(EventFields.EVENT_FUNCTION)
                    .append("(trace_index, stream_file, packet, event_offset)::JSON AS j FROM ")
                    .append(events)
                    .append(" WHERE time_ns IS NOT NULL AND name IN (");
            String sep = "";
            for (String name : roles.keySet()) {
                sql.append(sep).append(literal(name));
                sep = ", ";
            }
            sql.append(")) ORDER BY time_ns, trace_index, n");
            // the pending As by key: their time, trace and core
            Map<String, long[]> pending = new HashMap<>();
            Map<Long, String> coreNames = new HashMap<>();
            String[] a = new String[w];
            String[] b = new String[w];
            try (Statement s = c.createStatement();
                    ResultSet r = s.executeQuery(sql.toString())) {
                while (r.next()) {
                    int trace = r.getInt(1);
                    long t = r.getLong(2);
                    String name = r.getString(3);
                    String cpuText = r.getString(4);
                    long cpu = cpuText == null ? -1 : Long.parseLong(cpuText);
                    int role = roles.get(name);
                    for (int k = 0; k < w; k++) {
                        a[k] = r.getString(5 + 2 * k);
                        b[k] = r.getString(6 + 2 * k);
                    }
                    if ((role & THEN) != 0) {
                        long[] p = pending.remove(key(b, 1, spec, name, trace, cpu));
                        if (p == null) {
                            ignoredThen++;
                        } else {
                            found.add(new PatternSearch.Occurrence(
                                    p[0],
                                    t,
                                    (int) p[1],
                                    coreName(coreNames, traceNames, p[1], p[2]),
                                    trace,
                                    coreName(coreNames, traceNames, trace, cpu)));
                        }
                    }
                    if ((role & FIRST) != 0) {
                        long[] was = pending.put(key(a, 0, spec, name, trace, cpu), new long[] {t, trace, cpu});
                        if (was != null) {
                            ignoredFirst++; // an A after an A of the same key: the later one counts
                        }
                    }
                }
            } catch (SQLException e) {
                if (e.getCause() instanceof IllegalArgumentException i) {
                    throw i;
                }
                throw e;
            }
            ignoredFirst += pending.size();
        }
        return new PatternSearch.Result(
                spec, List.copyOf(found), ignoredFirst, ignoredThen, count, count == 0 ? 0 : begin, traceNames);
    }

    /**
     * An A's ({@code side} 0) or a B's (1) key: the values of its {@code --where} fields (their JSON, which is equal when
     * the values are), and with {@code sameCore} its trace and CPU; a field it lacks is an error.
     */
    private static String key(String[] values, int side, PatternSearch.Spec spec, String name, int trace, long cpu) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < values.length; k++) {
            if (values[k] == null) {
                String[] cond = spec.where().get(k);
                throw new IllegalArgumentException(
                        "--where " + String.join("=", cond) + ": event " + name + " has no field " + cond[side]);
            }
            sb.append(values[k]).append('\u0000');
        }
        if (spec.sameCore()) {
            sb.append(trace).append('/').append(cpu);
        }
        return sb.toString();
    }

    private static String coreName(Map<Long, String> names, List<String> traceNames, long trace, long cpu) {
        return names.computeIfAbsent(
                trace << 32 | (cpu & 0xffffffffL), k -> traceNames.get((int) trace) + (cpu >= 0 ? "/cpu" + cpu : ""));
    }

    /**
     * The SQL of a field's value in the event's JSON {@code j}: the path in its scope, or unprefixed,
     * in the first scope that has it ({@link #SEARCHED}); a name with one leading underscore is also
     * looked for without it (babeltrace2 shows it so).
     */
    static String value(String path) {
        List<String> segments = List.of(path.split("\\.", -1));
        List<String> candidates = new ArrayList<>();
        if (segments.size() > 1 && SEARCHED.contains(segments.getFirst())) {
            candidates.add(jsonPath(segments));
        } else {
            for (String scope : SEARCHED) {
                List<String> full = new ArrayList<>();
                full.add(scope);
                full.addAll(segments);
                candidates.add(jsonPath(full));
            }
        }
        StringBuilder sb = new StringBuilder("coalesce(");
        String sep = "";
        for (String p : candidates) {
            sb.append(sep).append("json_extract(j, ").append(literal(p)).append(")::VARCHAR");
            sep = ", ";
            String bare = p.replace("\"_", "\"");
            if (!bare.equals(p)) {
                sb.append(sep).append("json_extract(j, ").append(literal(bare)).append(")::VARCHAR");
            }
        }
        return sb.append(')').toString();
    }

    /** A JSON path of names, each maybe followed by {@code [index]}: {@code $."a"."b"[2]}. */
    private static String jsonPath(List<String> segments) {
        StringBuilder sb = new StringBuilder("$");
        for (String s : segments) {
            int bracket = s.indexOf('[');
            String name = bracket < 0 ? s : s.substring(0, bracket);
            sb.append(".\"").append(name.replace("\"", "\\\"")).append('"');
            if (bracket >= 0) {
                sb.append(s.substring(bracket));
            }
        }
        return sb.toString();
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /** An event name pattern: {@code *} matches any text, the rest itself (as {@link PatternSearch}'s). */
    private static Pattern glob(String name) {
        List<String> parts = new ArrayList<>();
        for (String part : name.split("\\*", -1)) {
            parts.add(Pattern.quote(part));
        }
        return Pattern.compile(String.join(".*", parts));
    }
}
