package dev.hetrace.ctf;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The stream files of a trace: their names (one string), which files make each stream (in
 * order), and each stream's id and class id. Immutable; equal tables are shared.
 */
record FileTable(
        String names,
        int[] nameEnd,
        int[] streamStart,
        int[] streamFiles,
        long[] streamIds,
        long[] classIds,
        long commonClassId) {
    int streamCount() {
        return streamStart.length - 1;
    }

    String name(int file) {
        return names.substring(file == 0 ? 0 : nameEnd[file - 1], nameEnd[file]);
    }

    int fileCount(int stream) {
        return streamStart[stream + 1] - streamStart[stream];
    }

    /** File index of the {@code k}th file of a stream. */
    int file(int stream, int k) {
        int at = streamStart[stream] + k;
        return streamFiles == null ? at : streamFiles[at];
    }

    long streamId(int stream) {
        return streamIds == null ? stream : streamIds[stream];
    }

    long classId(int stream) {
        return classIds == null ? commonClassId : classIds[stream];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileTable t
                && names.equals(t.names)
                && commonClassId == t.commonClassId
                && Arrays.equals(nameEnd, t.nameEnd)
                && Arrays.equals(streamStart, t.streamStart)
                && Arrays.equals(streamFiles, t.streamFiles)
                && Arrays.equals(streamIds, t.streamIds)
                && Arrays.equals(classIds, t.classIds);
    }

    @Override
    public int hashCode() {
        return names.hashCode() * 31
                + Arrays.hashCode(nameEnd) * 17
                + Arrays.hashCode(streamStart)
                + Arrays.hashCode(streamIds)
                + Long.hashCode(commonClassId);
    }

    /**
     * The table of the stream files {@code names} (sorted), from what each file's first packet
     * says: files of one stream instance (same class and stream_instance_id) form one stream,
     * ordered by time then name; streams are ordered by the name of their first file.
     *
     * @param keep          whether a file is a stream file (empty ones are not)
     * @param fallbackClass the class id of streams whose first packet says none
     */
    static FileTable of(
            List<String> names,
            boolean[] keep,
            long[] firstTime,
            long[] classId,
            boolean[] hasClass,
            long[] instance,
            boolean[] hasInstance,
            long fallbackClass) {
        int n = names.size();
        // Groups, in the order of their first file; then each group by time, and the groups by path.
        Map<String, Integer> byInstance = new HashMap<>();
        int[] groupOf = new int[n];
        int[] groupSize = new int[n];
        int groupCount = 0;
        for (int f = 0; f < n; f++) {
            if (!keep[f]) {
                continue;
            }
            int g;
            if (hasInstance[f]) {
                Integer known = byInstance.putIfAbsent(classId[f] + "/" + instance[f], groupCount);
                g = known != null ? known : groupCount++;
            } else {
                g = groupCount++;
            }
            groupOf[f] = g;
            groupSize[g]++;
        }
        int[] groupStart = new int[groupCount + 1];
        for (int g = 0; g < groupCount; g++) {
            groupStart[g + 1] = groupStart[g] + groupSize[g];
        }
        int[] filesInGroups = new int[groupStart[groupCount]];
        int[] fill = Arrays.copyOf(groupStart, groupCount);
        for (int f = 0; f < n; f++) {
            if (keep[f]) {
                filesInGroups[fill[groupOf[f]]++] = f;
            }
        }
        boolean identity = true;
        for (int g = 0; g < groupCount; g++) {
            int from = groupStart[g];
            int to = groupStart[g + 1];
            if (to - from > 1) {
                Integer[] order = new Integer[to - from];
                for (int k = from; k < to; k++) {
                    order[k - from] = filesInGroups[k];
                }
                Arrays.sort(
                        order,
                        Comparator.comparing((Integer f) -> firstTime[f], Long::compareUnsigned)
                                .thenComparing(f -> names.get(f)));
                for (int k = from; k < to; k++) {
                    filesInGroups[k] = order[k - from];
                }
            }
        }
        // Groups by the path of their first file (file names are sorted: by the first file's index).
        Integer[] groupOrder = new Integer[groupCount];
        for (int g = 0; g < groupCount; g++) {
            groupOrder[g] = g;
        }
        Arrays.sort(groupOrder, Comparator.comparingInt(g -> filesInGroups[groupStart[g]]));
        int[] streamStart = new int[groupCount + 1];
        int[] streamFiles = new int[filesInGroups.length];
        long[] streamIds = new long[groupCount];
        long[] classIds = new long[groupCount];
        int at = 0;
        for (int s = 0; s < groupCount; s++) {
            int g = groupOrder[s];
            streamStart[s] = at;
            for (int k = groupStart[g]; k < groupStart[g + 1]; k++) {
                streamFiles[at] = filesInGroups[k];
                identity &= streamFiles[at] == at;
                at++;
            }
            streamStart[s + 1] = at;
            int first = streamFiles[streamStart[s]];
            streamIds[s] = hasInstance[first] ? instance[first] : s;
            classIds[s] = hasClass[first] ? classId[first] : fallbackClass;
        }
        boolean idsAreRanks = true;
        boolean oneClass = true;
        for (int s = 0; s < groupCount; s++) {
            idsAreRanks &= streamIds[s] == s;
            oneClass &= classIds[s] == classIds[0];
        }
        StringBuilder all = new StringBuilder();
        int[] nameEnd = new int[n];
        for (int f = 0; f < n; f++) {
            all.append(names.get(f));
            nameEnd[f] = all.length();
        }
        return new FileTable(
                all.toString(),
                nameEnd,
                streamStart,
                identity ? null : streamFiles,
                idsAreRanks ? null : streamIds,
                oneClass ? null : classIds,
                groupCount == 0 ? 0 : classIds[0]);
    }
}
