/**
 * Reading CTF traces from Java, in the spirit of JFR's consumer API: open traces, iterate
 * their events in time order, read fields by name with typed getters, seek to a time.
 *
 * <pre>{@code
 * try (CtfReader reader = CtfReader.open(Path.of("lttng-traces/session/kernel"))) {
 *     reader.seek(startNanos);                           // optional: jump to a time
 *     while (reader.next()) {
 *         Event e = reader.event();                      // valid until the next call
 *         if (e.name().equals("sched_switch")) {
 *             long cpu = e.getLong("cpu_id");            // searched in payload, contexts
 *             String next = e.getString("next_comm");
 *             System.out.println(e.timeNanos() + " cpu" + cpu + " -> " + next);
 *         }
 *     }
 * }
 * }</pre>
 *
 * {@link dev.hetrace.ctf.api.Event} documents paths ({@code "packet_context.cpu_id"},
 * {@code "point.x"}, {@code "values[3]"}), the order in which scopes are searched, and the
 * exceptions for missing fields and wrong types. Reading a number allocates nothing: a path is
 * resolved once per event class, then read from the decoded event in place.
 */
package dev.hetrace.ctf.api;
