package dev.hetrace.tracer.config;

import static dev.hetrace.tracer.config.V2Converter.with;

import dev.hetrace.tracer.config.YamlNode.ListNode;
import dev.hetrace.tracer.config.YamlNode.MapNode;
import dev.hetrace.tracer.config.YamlNode.Scalar;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a barectf configuration file (format 3, or format 2 converted to 3) the way barectf
 * 3.1.1 does: the same processing stages (inclusions, field type aliases and inheritance, log
 * level aliases, normalization), barectf's own schemas at each stage, then the checks barectf
 * makes while building its model, and barectf's defaults ({@link ModelReader}).
 */
public final class ConfigReader {
    private static final List<Object> ROOT = List.of();
    private static final List<Object> TRACE_TYPE = List.of("trace", "type");

    private final Inclusions inc;
    private final MapNode config;

    private ConfigReader(Inclusions inc, MapNode config) {
        this.inc = inc;
        this.config = config;
    }

    /**
     * Reads {@code file}. Included files are searched in {@code includeDirs}, in order, then
     * among the standard partial configurations ({@code stdint.yaml}, ...). A top-level
     * {@code hetrace} mapping, hetrace's own section, is read apart (see {@link HetraceSection}).
     */
    public static Configuration read(Path file, List<Path> includeDirs) throws ConfigException {
        YamlLoader.Document doc = YamlLoader.load(file);
        if (!(doc.root() instanceof MapNode root)) {
            throw new ConfigException(
                    doc.root().mark(), "$", "the configuration must be a mapping, got " + YamlNode.kind(doc.root()));
        }
        // hetrace's own section: barectf's schemas would reject it
        Optional<SyncOption> sync = HetraceSection.sync(root.remove(HetraceSection.KEY));
        MapNode v3;
        if (doc.v3Tagged()) {
            v3 = root;
        } else {
            v3 = new V2Converter(file, root, includeDirs).convert();
        }
        ConfigReader reader = new ConfigReader(new Inclusions(file, includeDirs, 3), v3);
        Configuration config = reader.parse();
        return sync.isPresent() ? sync.get().applyTo(config) : config;
    }

    private MapNode traceType() {
        return (MapNode) ((MapNode) config.get("trace")).get("type");
    }

    private Configuration parse() throws ConfigException {
        SchemaValidator.validate(config, "config/3/config-pre-include", ROOT);
        config.put("trace", processTraceInclude((MapNode) config.get("trace"), List.of("trace")));
        // barectf's intermediate schemas do not require these, and barectf then fails with a
        // Python KeyError: reject the configuration cleanly instead
        MapNode trace = (MapNode) config.get("trace");
        if (!(trace.get("type") instanceof MapNode tt)) {
            throw ModelReader.error(trace, List.of("trace"), "missing required property `type`");
        }
        if (!(tt.get("data-stream-types") instanceof MapNode)) {
            throw ModelReader.error(tt, TRACE_TYPE, "missing required property `data-stream-types`");
        }
        expandFts();
        substituteLogLevelAliases();
        SchemaValidator.validate(config, "config/3/config", ROOT);
        normalizeProps();
        return new ModelReader(config).configuration();
    }

    // ---- inclusions ---------------------------------------------------------------------

    private MapNode processTraceInclude(MapNode node, List<Object> path) throws ConfigException {
        SchemaValidator.validate(node, "config/3/trace-pre-include", path);
        return inc.processNodeInclude(node, path, this::processTraceInclude, (n, p) -> {
            if (n.has("type")) {
                n.put("type", processTraceTypeInclude((MapNode) n.get("type"), with(p, "type")));
            }
        });
    }

    private MapNode processTraceTypeInclude(MapNode node, List<Object> path) throws ConfigException {
        SchemaValidator.validate(node, "config/3/trace-type-pre-include", path);
        return inc.processNodeInclude(node, path, this::processTraceTypeInclude, (n, p) -> {
            if (n.get("clock-types") instanceof MapNode clocks) {
                for (String k : List.copyOf(clocks.entries().keySet())) {
                    clocks.put(k, processClockInclude((MapNode) clocks.get(k), with(p, "clock-types", k)));
                }
            }
            if (n.get("data-stream-types") instanceof MapNode dsts) {
                for (String k : List.copyOf(dsts.entries().keySet())) {
                    dsts.put(k, processDstInclude((MapNode) dsts.get(k), with(p, "data-stream-types", k)));
                }
            }
        });
    }

    private MapNode processClockInclude(MapNode node, List<Object> path) throws ConfigException {
        SchemaValidator.validate(node, "config/3/clock-type-pre-include", path);
        return inc.processNodeInclude(node, path, this::processClockInclude, null);
    }

    private MapNode processDstInclude(MapNode node, List<Object> path) throws ConfigException {
        SchemaValidator.validate(node, "config/3/dst-pre-include", path);
        return inc.processNodeInclude(node, path, this::processDstInclude, (n, p) -> {
            if (n.get("event-record-types") instanceof MapNode erts) {
                for (String k : List.copyOf(erts.entries().keySet())) {
                    erts.put(k, processErtInclude((MapNode) erts.get(k), with(p, "event-record-types", k)));
                }
            }
        });
    }

    private MapNode processErtInclude(MapNode node, List<Object> path) throws ConfigException {
        SchemaValidator.validate(node, "config/3/ert-pre-include", path);
        return inc.processNodeInclude(node, path, this::processErtInclude, null);
    }

    // ---- field type aliases and inheritance -------------------------------------------------

    /** Every place of the trace type that holds a field type: (parent node, key, path of the value). */
    private record FtSlot(MapNode parent, String key, List<Object> path) {}

    private List<FtSlot> ftSlots() {
        List<FtSlot> slots = new ArrayList<>();
        MapNode tt = traceType();
        if (tt.get("$features") instanceof MapNode f) {
            for (String k : List.of("magic-field-type", "uuid-field-type", "data-stream-type-id-field-type")) {
                slots.add(new FtSlot(f, k, with(TRACE_TYPE, "$features", k)));
            }
        }
        MapNode dsts = (MapNode) tt.get("data-stream-types");
        for (Map.Entry<String, YamlNode> d : dsts.entries().entrySet()) {
            MapNode dst = (MapNode) d.getValue();
            List<Object> dp = with(TRACE_TYPE, "data-stream-types", d.getKey());
            if (dst.get("$features") instanceof MapNode f) {
                if (f.get("packet") instanceof MapNode pkt) {
                    for (String k : List.of(
                            "total-size-field-type",
                            "content-size-field-type",
                            "beginning-timestamp-field-type",
                            "end-timestamp-field-type",
                            "discarded-event-records-counter-snapshot-field-type",
                            "sequence-number-field-type")) {
                        slots.add(new FtSlot(pkt, k, with(dp, "$features", "packet", k)));
                    }
                }
                if (f.get("event-record") instanceof MapNode er) {
                    for (String k : List.of("type-id-field-type", "timestamp-field-type")) {
                        slots.add(new FtSlot(er, k, with(dp, "$features", "event-record", k)));
                    }
                }
            }
            if (dst.get("packet-context-field-type-extra-members") instanceof ListNode extra) {
                for (int i = 0; i < extra.items().size(); i++) {
                    if (extra.items().get(i) instanceof MapNode m
                            && !m.entries().isEmpty()
                            && m.entries().values().iterator().next() instanceof MapNode member) {
                        String name = m.entries().keySet().iterator().next();
                        slots.add(new FtSlot(
                                member,
                                "field-type",
                                with(dp, "packet-context-field-type-extra-members", i, name, "field-type")));
                    }
                }
            }
            slots.add(new FtSlot(
                    dst, "event-record-common-context-field-type", with(dp, "event-record-common-context-field-type")));
            if (dst.get("event-record-types") instanceof MapNode erts) {
                for (Map.Entry<String, YamlNode> e : erts.entries().entrySet()) {
                    if (e.getValue() instanceof MapNode ert) {
                        for (String k : List.of("specific-context-field-type", "payload-field-type")) {
                            slots.add(new FtSlot(ert, k, with(dp, "event-record-types", e.getKey(), k)));
                        }
                    }
                }
            }
        }
        return slots;
    }

    private void expandFts() throws ConfigException {
        SchemaValidator.validate(config, "config/3/config-pre-field-type-expansion", ROOT);
        MapNode tt = traceType();
        if (!(tt.get("$field-type-aliases") instanceof MapNode aliases)) {
            tt.remove("$field-type-aliases");
            return;
        }
        // members written `- name: alias` become `- name: {field-type: alias}` first
        for (String alias : aliases.entries().keySet()) {
            normalizeMembers(aliases, alias);
        }
        if (tt.get("$features") instanceof MapNode) {
            // (features hold no members, but barectf normalizes them too: harmless)
        }
        MapNode dsts = (MapNode) tt.get("data-stream-types");
        for (YamlNode d : dsts.entries().values()) {
            if (((MapNode) d).get("packet-context-field-type-extra-members") instanceof ListNode extra) {
                normalizeMemberList(extra);
            }
        }
        List<FtSlot> slots = ftSlots();
        for (FtSlot s : slots) {
            normalizeMembers(s.parent(), s.key());
        }
        for (FtSlot s : ftSlots()) {
            YamlNode v = s.parent().get(s.key());
            if (v instanceof MapNode || v instanceof Scalar sc && sc.value() instanceof String) {
                inc.resolveFtAlias(aliases, s.parent(), s.key(), s.path(), null);
            }
        }
        tt.remove("$field-type-aliases");
        for (FtSlot s : ftSlots()) {
            if (s.parent().get(s.key()) instanceof MapNode) {
                inc.applyFtInheritance(s.parent(), s.key());
            }
        }
    }

    private static void normalizeMembers(MapNode parent, String key) {
        if (parent.get(key) instanceof MapNode ft && ft.get("members") instanceof ListNode members) {
            normalizeMemberList(members);
        }
    }

    private static void normalizeMemberList(ListNode members) {
        for (YamlNode item : members.items()) {
            if (item instanceof MapNode m && !m.entries().isEmpty()) {
                Map.Entry<String, YamlNode> e =
                        m.entries().entrySet().iterator().next();
                if (e.getValue() instanceof Scalar s && s.value() instanceof String) {
                    MapNode wrapped = new MapNode(s.mark());
                    wrapped.put("field-type", s);
                    m.put(e.getKey(), wrapped);
                }
                normalizeMembers(m, e.getKey() == null ? "" : e.getKey());
                if (m.get(e.getKey()) instanceof MapNode inner) {
                    normalizeMembers(inner, "field-type");
                }
            }
        }
    }

    private void substituteLogLevelAliases() throws ConfigException {
        SchemaValidator.validate(config, "config/3/config-pre-log-level-alias-sub", ROOT);
        MapNode tt = traceType();
        YamlNode aliasesNode = tt.remove("$log-level-aliases");
        if (!(aliasesNode instanceof MapNode aliases)) {
            return;
        }
        for (Map.Entry<String, YamlNode> d :
                ((MapNode) tt.get("data-stream-types")).entries().entrySet()) {
            if (!(d.getValue() instanceof MapNode dst && dst.get("event-record-types") instanceof MapNode erts)) {
                continue; // the schema validation that follows says what is wrong
            }
            for (Map.Entry<String, YamlNode> e : erts.entries().entrySet()) {
                if (!(e.getValue() instanceof MapNode ert)) {
                    continue;
                }
                if (ert.get("log-level") instanceof Scalar ll && ll.value() instanceof String alias) {
                    if (!aliases.has(alias)) {
                        throw new ConfigException(
                                ll.mark(),
                                ConfigPaths.format(with(
                                        TRACE_TYPE,
                                        "data-stream-types",
                                        d.getKey(),
                                        "event-record-types",
                                        e.getKey(),
                                        "log-level")),
                                "log level alias `" + alias + "` does not exist");
                    }
                    ert.put("log-level", aliases.get(alias).copy());
                }
            }
        }
    }

    // ---- normalization -------------------------------------------------------------------

    private void normalizeProps() {
        MapNode tt = traceType();
        normalizeByteOrder(tt, "native-byte-order");
        normalizeTree(tt);
        MapNode trace = (MapNode) config.get("trace");
        if (trace.isNull("environment")) {
            trace.remove("environment");
        }
    }

    private static void normalizeByteOrder(MapNode n, String key) {
        if (n.get(key) instanceof Scalar s && s.value() instanceof String v) {
            if (v.equals("be") || v.equals("big")) {
                n.put(key, new Scalar(s.mark(), "big-endian"));
            } else if (v.equals("le") || v.equals("little")) {
                n.put(key, new Scalar(s.mark(), "little-endian"));
            }
        }
    }

    /** Drops null properties (they mean "the default") and expands abbreviations, as barectf does. */
    private static void normalizeTree(YamlNode node) {
        if (node instanceof ListNode l) {
            l.items().forEach(ConfigReader::normalizeTree);
        } else if (node instanceof MapNode m) {
            for (String key : List.copyOf(m.entries().keySet())) {
                YamlNode v = m.get(key);
                normalizeTree(v);
                if (v instanceof Scalar s && s.value() == null) {
                    m.remove(key);
                } else if (v instanceof Scalar s && s.value() instanceof String str) {
                    String expanded = switch (key) {
                        case "class" ->
                            switch (str) {
                                case "uint", "unsigned-int" -> "unsigned-integer";
                                case "sint", "signed-int" -> "signed-integer";
                                case "uenum", "unsigned-enum" -> "unsigned-enumeration";
                                case "senum", "signed-enum" -> "signed-enumeration";
                                case "str" -> "string";
                                case "struct" -> "structure";
                                default -> str;
                            };
                        case "preferred-display-base" ->
                            switch (str) {
                                case "bin" -> "binary";
                                case "oct" -> "octal";
                                case "dec" -> "decimal";
                                case "hex" -> "hexadecimal";
                                default -> str;
                            };
                        default -> str;
                    };
                    if (!expanded.equals(str)) {
                        m.put(key, new Scalar(s.mark(), expanded));
                    }
                }
            }
        }
    }
}
