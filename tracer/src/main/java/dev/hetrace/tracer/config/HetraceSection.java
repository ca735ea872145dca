package dev.hetrace.tracer.config;

import dev.hetrace.tracer.config.YamlNode.MapNode;
import dev.hetrace.tracer.config.YamlNode.Scalar;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * hetrace's own section of a barectf configuration, the top-level {@code hetrace} mapping.
 * barectf's schemas reject unknown properties, so {@link ConfigReader} takes the section out
 * before they run and reads it here: today {@code sync: true} or
 * {@code sync: {data-stream-type: NAME}}.
 */
final class HetraceSection {
    static final String KEY = "hetrace";

    private HetraceSection() {}

    /** The sync request of the section (null: no section), if it asks for one. */
    static Optional<SyncOption> sync(YamlNode section) throws ConfigException {
        if (section == null || section instanceof Scalar s && s.value() == null) {
            return Optional.empty();
        }
        List<Object> path = List.of(KEY);
        if (!(section instanceof MapNode m)) {
            throw error(section, path, "expected a mapping, got " + YamlNode.kind(section));
        }
        only(m, path, Set.of("sync"));
        YamlNode sync = m.get("sync");
        List<Object> syncPath = List.of(KEY, "sync");
        if (sync == null || sync instanceof Scalar s && (s.value() == null || Boolean.FALSE.equals(s.value()))) {
            return Optional.empty();
        }
        if (sync instanceof Scalar s && Boolean.TRUE.equals(s.value())) {
            return Optional.of(new SyncOption(Optional.empty(), sync.mark(), ConfigPaths.format(syncPath)));
        }
        if (!(sync instanceof MapNode sm)) {
            throw error(sync, syncPath, "expected a boolean or a mapping, got " + YamlNode.kind(sync));
        }
        only(sm, syncPath, Set.of("data-stream-type"));
        YamlNode dst = sm.get("data-stream-type");
        if (dst == null || dst instanceof Scalar s && s.value() == null) {
            return Optional.of(new SyncOption(Optional.empty(), sync.mark(), ConfigPaths.format(syncPath)));
        }
        List<Object> dstPath = List.of(KEY, "sync", "data-stream-type");
        if (!(dst instanceof Scalar s && s.value() instanceof String name)) {
            throw error(dst, dstPath, "expected a string, got " + YamlNode.kind(dst));
        }
        return Optional.of(new SyncOption(Optional.of(name), dst.mark(), ConfigPaths.format(dstPath)));
    }

    private static void only(MapNode m, List<Object> path, Set<String> known) throws ConfigException {
        for (var e : m.entries().entrySet()) {
            if (!known.contains(e.getKey())) {
                List<Object> at = new ArrayList<>(path);
                at.add(e.getKey());
                throw error(
                        e.getValue(),
                        at,
                        "unknown property `" + e.getKey() + "` (known: "
                                + String.join(", ", known.stream().sorted().toList()) + ")");
            }
        }
    }

    private static ConfigException error(YamlNode at, List<Object> path, String message) {
        return new ConfigException(at.mark(), ConfigPaths.format(path), message);
    }
}
