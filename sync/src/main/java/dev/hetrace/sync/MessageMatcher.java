package dev.hetrace.sync;

import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.api.FieldNotFoundException;
import dev.hetrace.ctf.api.FieldTypeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the messages between traces, one event at a time: an event a rule names is a send or a
 * receive with a key (a 128-bit hash of the rule and the key fields' values); a send and a
 * receive with the same key in two different traces make a message. The first send (or
 * receive) of a key wins; a repeat (a retransmitted TCP segment) is counted, not matched, which
 * keeps every match causal: the first send precedes any receive of the same data.
 *
 * <p>Memory: one entry per send or receive still waiting for its other half.
 */
public final class MessageMatcher {
    /** Where the messages go. */
    @FunctionalInterface
    public interface Sink {
        void message(int rule, int fromTrace, long sendNanos, int toTrace, long receiveNanos);
    }

    /** What one rule found. */
    public record RuleStats(
            MatchRule rule, long matched, long unmatchedSends, long unmatchedReceives, long repeats, long sameTrace) {}

    /**
     * A role an event plays in a rule (one of its sides): key fields as alternatives, each known
     * to be a string or not, and the side's condition if any.
     */
    private static final class Role {
        final int rule;
        final boolean send;
        final KeyField[] keys;
        /** The key fields as handles, resolved once per event class. */
        final Event.Field[][] fields;

        final FieldCondition when;
        final boolean[] text;
        /** Whether a key field was found missing once: from then on its presence is asked first. */
        final boolean[] mayMiss;

        Role(int rule, boolean send, MatchRule.Side side) {
            this.rule = rule;
            this.send = send;
            int n = side.keys().size();
            this.keys = new KeyField[n];
            this.text = new boolean[n];
            this.mayMiss = new boolean[n];
            this.fields = new Event.Field[n][];
            this.when = side.when() == null ? null : FieldCondition.parse(side.when());
            for (int i = 0; i < n; i++) {
                this.keys[i] = KeyField.parse(side.keys().get(i));
                this.fields[i] =
                        Arrays.stream(this.keys[i].paths()).map(Event::field).toArray(Event.Field[]::new);
            }
        }
    }

    private final List<MatchRule> rules;
    private final Sink sink;
    private final Pending pending = new Pending();
    private final long[] matched;
    private final long[] repeats;
    private final long[] sameTrace;

    public MessageMatcher(List<MatchRule> rules, Sink sink) {
        this.rules = List.copyOf(rules);
        this.sink = sink;
        this.keys = new Keys(this.rules);
        matched = new long[rules.size()];
        repeats = new long[rules.size()];
        sameTrace = new long[rules.size()];
    }

    /** Whether the event is a send or receive of some rule (it may still lack a key field). */
    public boolean concerns(Event e) {
        return keys.concerns(e);
    }

    /** Takes the reader's current event of trace {@code trace}. */
    public void event(int trace, Event e) {
        int n = keys.of(e, scratch);
        for (int i = 0; i < n; i++) {
            offer(trace, (int) scratch[3 * i], scratch[3 * i + 1], scratch[3 * i + 2], e.timeNanos());
        }
    }

    private final long[] scratch = new long[48];
    private final Keys keys;

    /** A new key extractor for these rules, for a thread of its own (its caches are its own). */
    public Keys keys() {
        return new Keys(rules);
    }

    /**
     * Takes a send or receive found by a {@link Keys} of this matcher's rules.
     *
     * @param role the role's index as {@link Keys#of} gives it: rule × 2 + 1 for a send
     */
    public void offer(int trace, int role, long h1, long h2, long t) {
        int rule = role >>> 1;
        boolean send = (role & 1) != 0;
        int slot = pending.find(h1, h2);
        if (slot < 0) {
            pending.put(h1, h2, trace, send, rule, t);
            return;
        }
        if (pending.send(slot) == send) {
            repeats[rule]++;
            return;
        }
        int other = pending.trace(slot);
        long otherTime = pending.time(slot);
        pending.remove(slot);
        if (other == trace) {
            sameTrace[rule]++;
            return;
        }
        matched[rule]++;
        if (send) {
            sink.message(rule, trace, t, other, otherTime);
        } else {
            sink.message(rule, other, otherTime, trace, t);
        }
    }

    /**
     * Finds the sends and receives in events: their role and 128-bit key. Not thread-safe (it
     * caches per event class): one per reading thread.
     */
    public static final class Keys {
        private final Map<String, List<Role>> byEvent = new HashMap<>();
        /** byEvent by the identity of the reader's name strings (one per event class): no hashing of names per event. */
        private final IdentityHashMap<String, List<Role>> byName = new IdentityHashMap<>();

        Keys(List<MatchRule> rules) {
            for (int r = 0; r < rules.size(); r++) {
                MatchRule rule = rules.get(r);
                for (MatchRule.Side side : rule.sends()) {
                    byEvent.computeIfAbsent(side.event(), k -> new ArrayList<>())
                            .add(new Role(r, true, side));
                }
                for (MatchRule.Side side : rule.receives()) {
                    byEvent.computeIfAbsent(side.event(), k -> new ArrayList<>())
                            .add(new Role(r, false, side));
                }
            }
        }

        /** Whether the event is a send or receive of some rule (it may still lack a key field). */
        public boolean concerns(Event e) {
            return roles(e) != null;
        }

        private List<Role> roles(Event e) {
            String name = e.name();
            List<Role> roles = byName.get(name);
            if (roles == null && !byName.containsKey(name)) {
                roles = byEvent.get(name);
                byName.put(name, roles);
            }
            return roles;
        }

        /**
         * Writes, for each role the event plays with all its key fields, (role, h1, h2) into
         * {@code out} from index 0, and returns how many; the role is rule × 2 + 1 for a send.
         */
        public int of(Event e, long[] out) {
            List<Role> roles = roles(e);
            if (roles == null || !e.hasTime()) {
                return 0;
            }
            int n = 0;
            for (Role role : roles) {
                if (role.when != null && !role.when.test(e)) {
                    continue;
                }
                long h1 = 0x9E3779B97F4A7C15L * (role.rule + 1);
                long h2 = 0xC2B2AE3D27D4EB4FL * (role.rule + 1);
                boolean complete = true;
                for (int k = 0; k < role.keys.length && complete; k++) {
                    Event.Field path = role.fields[k][0];
                    if (role.fields[k].length > 1 || role.mayMiss[k]) {
                        // alternatives, or a field some events lack: ask first (reading is then cheap)
                        path = null;
                        for (Event.Field alt : role.fields[k]) {
                            if (e.has(alt)) {
                                path = alt;
                                break;
                            }
                        }
                        if (path == null) {
                            complete = false;
                            break;
                        }
                    }
                    long v;
                    try {
                        v = role.text[k] ? stringHash(e.getString(path)) : role.keys[k].apply(e.getLong(path));
                    } catch (FieldTypeException notAnInteger) {
                        if (!role.keys[k].whole()) {
                            // bits of a text: not this rule's message
                            complete = false;
                            break;
                        }
                        role.text[k] = true;
                        v = stringHash(e.getString(path));
                    } catch (FieldNotFoundException missing) {
                        role.mayMiss[k] = true;
                        complete = false;
                        break;
                    }
                    h1 = mix(h1 ^ v);
                    h2 = mix(h2 + v * 0x165667B19E3779F9L);
                }
                if (complete && 3 * n + 2 < out.length) {
                    out[3 * n] = 2L * role.rule + (role.send ? 1 : 0);
                    out[3 * n + 1] = h1;
                    out[3 * n + 2] = h2;
                    n++;
                }
            }
            return n;
        }
    }

    /** What each rule found so far (the sends and receives still waiting count as unmatched). */
    public List<RuleStats> stats() {
        long[] sends = new long[rules.size()];
        long[] receives = new long[rules.size()];
        pending.count(sends, receives);
        List<RuleStats> out = new ArrayList<>();
        for (int r = 0; r < rules.size(); r++) {
            out.add(new RuleStats(rules.get(r), matched[r], sends[r], receives[r], repeats[r], sameTrace[r]));
        }
        return out;
    }

    private static long stringHash(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h = (h ^ s.charAt(i)) * 0x100000001b3L;
        }
        return h ^ s.length();
    }

    /** A 64-bit finalizer (SplitMix64's). */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Messages matched so far, all rules together. */
    public long matched() {
        long n = 0;
        for (long m : matched) {
            n += m;
        }
        return n;
    }

    /** How many sends and receives wait for their other half. */
    public long pending() {
        return pending.size;
    }

    /**
     * Sends and receives waiting for their other half: open addressing on the 128-bit key,
     * linear probing, the four words of a slot side by side so that a probe touches one cache
     * line.
     */
    private static final class Pending {
        private static final int K1 = 0;
        private static final int K2 = 1;
        private static final int TIME = 2;
        /** trace << 17 | rule << 1 | send, or −1 for a free slot. */
        private static final int META = 3;

        private long[] slots = free(1024);
        private int capacity = 1024;
        long size;

        private static long[] free(int n) {
            long[] a = new long[4 * n];
            for (int i = 0; i < n; i++) {
                a[4 * i + META] = -1;
            }
            return a;
        }

        int find(long h1, long h2) {
            int mask = capacity - 1;
            for (int i = (int) h1 & mask; ; i = (i + 1) & mask) {
                int at = 4 * i;
                if (slots[at + META] < 0) {
                    return -1;
                }
                if (slots[at + K1] == h1 && slots[at + K2] == h2) {
                    return i;
                }
            }
        }

        void put(long h1, long h2, int trace, boolean send, int rule, long time) {
            if (2 * (size + 1) > capacity) {
                grow();
            }
            insert(slots, capacity, h1, h2, time, ((long) trace << 17) | ((long) rule << 1) | (send ? 1 : 0));
            size++;
        }

        private static void insert(long[] slots, int capacity, long h1, long h2, long time, long meta) {
            int mask = capacity - 1;
            int i = (int) h1 & mask;
            while (slots[4 * i + META] >= 0) {
                i = (i + 1) & mask;
            }
            int at = 4 * i;
            slots[at + K1] = h1;
            slots[at + K2] = h2;
            slots[at + TIME] = time;
            slots[at + META] = meta;
        }

        boolean send(int slot) {
            return (slots[4 * slot + META] & 1) != 0;
        }

        int trace(int slot) {
            return (int) (slots[4 * slot + META] >>> 17);
        }

        long time(int slot) {
            return slots[4 * slot + TIME];
        }

        /** Removes a slot, shifting back the entries of its probe run (no tombstones). */
        void remove(int slot) {
            int mask = capacity - 1;
            int hole = slot;
            slots[4 * hole + META] = -1;
            size--;
            for (int i = (hole + 1) & mask; slots[4 * i + META] >= 0; i = (i + 1) & mask) {
                int home = (int) slots[4 * i + K1] & mask;
                // move i into the hole unless its home lies cyclically in (hole, i]
                boolean stays = hole <= i ? home > hole && home <= i : home > hole || home <= i;
                if (!stays) {
                    System.arraycopy(slots, 4 * i, slots, 4 * hole, 4);
                    slots[4 * i + META] = -1;
                    hole = i;
                }
            }
        }

        void count(long[] sends, long[] receives) {
            for (int i = 0; i < capacity; i++) {
                long m = slots[4 * i + META];
                if (m >= 0) {
                    int rule = (int) ((m >>> 1) & 0xffff);
                    if ((m & 1) != 0) {
                        sends[rule]++;
                    } else {
                        receives[rule]++;
                    }
                }
            }
        }

        private void grow() {
            int n = capacity * 2;
            long[] bigger = free(n);
            for (int i = 0; i < capacity; i++) {
                int at = 4 * i;
                if (slots[at + META] >= 0) {
                    insert(bigger, n, slots[at + K1], slots[at + K2], slots[at + TIME], slots[at + META]);
                }
            }
            slots = bigger;
            capacity = n;
        }
    }
}
