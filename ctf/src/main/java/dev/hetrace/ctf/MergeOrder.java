package dev.hetrace.ctf;

/**
 * The order of events from several streams, as babeltrace2's muxer decides it: time, then
 * trace (UUID, then name), stream class id, stream id, event class id, event name, and the
 * stream's path. One place for it, so that every merge gives the same order.
 */
final class MergeOrder {
    private MergeOrder() {}

    static boolean less(
            long timeA,
            int rankA,
            long classA,
            long streamA,
            long eventA,
            String nameA,
            String pathA,
            int idxA,
            long timeB,
            int rankB,
            long classB,
            long streamB,
            long eventB,
            String nameB,
            String pathB,
            int idxB) {
        if (timeA != timeB) {
            return timeA < timeB;
        }
        if (rankA != rankB) {
            return rankA < rankB;
        }
        if (classA != classB) {
            return Long.compareUnsigned(classA, classB) < 0;
        }
        if (streamA != streamB) {
            return Long.compareUnsigned(streamA, streamB) < 0;
        }
        if (eventA != eventB) {
            return Long.compareUnsigned(eventA, eventB) < 0;
        }
        if (nameA != null && nameB != null && !nameA.equals(nameB)) {
            return nameA.compareTo(nameB) < 0;
        }
        int c = pathA.compareTo(pathB);
        return c != 0 ? c < 0 : idxA < idxB;
    }

    /** Ranks of traces in merge order (by UUID, those with one first, then by name). */
    static int[] traceRanks(java.util.List<CtfTrace> traces) {
        java.util.List<Integer> order = new java.util.ArrayList<>();
        for (int t = 0; t < traces.size(); t++) {
            order.add(t);
        }
        order.sort((x, y) -> compareTraces(traces.get(x), traces.get(y)));
        int[] rank = new int[traces.size()];
        for (int r = 0; r < order.size(); r++) {
            rank[order.get(r)] = r;
        }
        return rank;
    }

    private static int compareTraces(CtfTrace a, CtfTrace b) {
        java.util.UUID ua = a.metadata().uuid();
        java.util.UUID ub = b.metadata().uuid();
        if ((ua == null) != (ub == null)) {
            return ua != null ? -1 : 1;
        }
        if (ua != null && !ua.equals(ub)) {
            // memcmp order of the 16 bytes
            int c = Long.compareUnsigned(ua.getMostSignificantBits(), ub.getMostSignificantBits());
            return c != 0 ? c : Long.compareUnsigned(ua.getLeastSignificantBits(), ub.getLeastSignificantBits());
        }
        return a.name().compareTo(b.name());
    }
}
