package dev.hetrace.tracer.config;

import dev.hetrace.tracer.config.YamlNode.ListNode;
import dev.hetrace.tracer.config.YamlNode.MapNode;
import dev.hetrace.tracer.config.YamlNode.Scalar;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * barectf 2 configurations: processed (inclusions, type aliases, inheritance, validation with
 * barectf's format 2 schemas) and converted to a barectf 3 configuration tree, as barectf 3.1.1
 * does, so one model serves both formats. Converted nodes keep the marks of the format 2
 * values they come from.
 */
final class V2Converter {
    private static final List<Object> ROOT = List.of();
    private final Inclusions inc;
    private final MapNode root;

    V2Converter(Path file, MapNode root, List<Path> includeDirs) {
        this.inc = new Inclusions(file, includeDirs, 2);
        this.root = root;
    }

    /** Returns the barectf 3 configuration mapping. */
    MapNode convert() throws ConfigException {
        SchemaValidator.validate(root, "config/2/config-min", ROOT);
        processConfigIncludes();
        expandFts();
        SchemaValidator.validate(root, "config/2/config", ROOT);
        return transform();
    }

    // ---- inclusions -------------------------------------------------------------------

    private void processConfigIncludes() throws ConfigException {
        SchemaValidator.validate(root, "config/2/config-pre-include", ROOT);
        root.put("metadata", processMetaInclude((MapNode) root.get("metadata"), List.of("metadata")));
    }

    private MapNode processMetaInclude(MapNode meta, List<Object> path) throws ConfigException {
        SchemaValidator.validate(meta, "config/2/metadata-pre-include", path);
        return inc.processNodeInclude(meta, path, this::processMetaInclude, (node, p) -> {
            if (node.has("trace")) {
                node.put("trace", processTraceTypeInclude((MapNode) node.get("trace"), with(p, "trace")));
            }
            if (node.get("clocks") instanceof MapNode clocks) {
                for (String k : List.copyOf(clocks.entries().keySet())) {
                    clocks.put(k, processClockInclude((MapNode) clocks.get(k), with(p, "clocks", k)));
                }
            }
            if (node.get("streams") instanceof MapNode streams) {
                for (String k : List.copyOf(streams.entries().keySet())) {
                    streams.put(k, processDstInclude((MapNode) streams.get(k), with(p, "streams", k)));
                }
            }
        });
    }

    private MapNode processTraceTypeInclude(MapNode node, List<Object> path) throws ConfigException {
        SchemaValidator.validate(node, "config/2/trace-type-pre-include", path);
        return inc.processNodeInclude(node, path, this::processTraceTypeInclude, null);
    }

    private MapNode processClockInclude(MapNode node, List<Object> path) throws ConfigException {
        SchemaValidator.validate(node, "config/2/clock-type-pre-include", path);
        return inc.processNodeInclude(node, path, this::processClockInclude, null);
    }

    private MapNode processDstInclude(MapNode node, List<Object> path) throws ConfigException {
        SchemaValidator.validate(node, "config/2/dst-pre-include", path);
        return inc.processNodeInclude(node, path, this::processDstInclude, (dst, p) -> {
            if (dst.get("events") instanceof MapNode events) {
                for (String k : List.copyOf(events.entries().keySet())) {
                    events.put(k, processErtInclude((MapNode) events.get(k), with(p, "events", k)));
                }
            }
        });
    }

    private MapNode processErtInclude(MapNode node, List<Object> path) throws ConfigException {
        SchemaValidator.validate(node, "config/2/ert-pre-include", path);
        return inc.processNodeInclude(node, path, this::processErtInclude, null);
    }

    // ---- type aliases and inheritance --------------------------------------------------

    private void expandFts() throws ConfigException {
        SchemaValidator.validate(root, "config/2/config-pre-field-type-expansion", ROOT);
        MapNode meta = (MapNode) root.get("metadata");
        if (!(meta.get("type-aliases") instanceof MapNode aliases)) {
            return;
        }
        List<Object> mp = List.of("metadata");
        inc.resolveFtAlias(
                aliases,
                (MapNode) meta.get("trace"),
                "packet-header-type",
                with(mp, "trace", "packet-header-type"),
                null);
        for (Map.Entry<String, YamlNode> s :
                ((MapNode) meta.get("streams")).entries().entrySet()) {
            MapNode dst = (MapNode) s.getValue();
            List<Object> sp = with(mp, "streams", s.getKey());
            for (String k : List.of("packet-context-type", "event-header-type", "event-context-type")) {
                inc.resolveFtAlias(aliases, dst, k, with(sp, k), null);
            }
            for (Map.Entry<String, YamlNode> ev :
                    ((MapNode) dst.get("events")).entries().entrySet()) {
                MapNode ert = (MapNode) ev.getValue();
                for (String k : List.of("context-type", "payload-type")) {
                    inc.resolveFtAlias(aliases, ert, k, with(sp, "events", ev.getKey(), k), null);
                }
            }
        }
        meta.remove("type-aliases");
        inc.applyFtInheritance((MapNode) meta.get("trace"), "packet-header-type");
        for (YamlNode d : ((MapNode) meta.get("streams")).entries().values()) {
            MapNode dst = (MapNode) d;
            inc.applyFtInheritance(dst, "packet-context-type");
            inc.applyFtInheritance(dst, "event-header-type");
            inc.applyFtInheritance(dst, "event-context-type");
            for (YamlNode e : ((MapNode) dst.get("events")).entries().values()) {
                inc.applyFtInheritance((MapNode) e, "context-type");
                inc.applyFtInheritance((MapNode) e, "payload-type");
            }
        }
    }

    // ---- conversion to format 3 -----------------------------------------------------------

    private MapNode transform() throws ConfigException {
        root.remove("version");
        YamlNode prefixNode = root.remove("prefix");
        String prefix = prefixNode instanceof Scalar s && s.value() instanceof String str ? str : "barectf_";
        Mark prefixMark = prefixNode == null ? root.mark() : prefixNode.mark();
        YamlNode optionsNode = root.remove("options");
        MapNode codeGen = new MapNode(root.mark());
        MapNode v3Prefix = new MapNode(prefixMark);
        v3Prefix.put("identifier", new Scalar(prefixMark, prefix));
        v3Prefix.put("file-name", new Scalar(prefixMark, stripTrailingUnderscores(prefix)));
        codeGen.put("prefix", v3Prefix);
        if (optionsNode instanceof MapNode opts) {
            MapNode header = new MapNode(opts.mark());
            copyIfExists(header, opts, "gen-prefix-def", "identifier-prefix-definition");
            copyIfExists(header, opts, "gen-default-stream-def", "default-data-stream-type-name-definition");
            codeGen.put("header", header);
        }
        MapNode v3Options = new MapNode(root.mark());
        v3Options.put("code-generation", codeGen);
        root.put("options", v3Options);
        root.put("trace", convMeta((MapNode) root.get("metadata")));
        root.remove("metadata");
        return root;
    }

    private static String stripTrailingUnderscores(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == '_') {
            end--;
        }
        return s.substring(0, end);
    }

    private MapNode convMeta(MapNode meta) throws ConfigException {
        MapNode trace = new MapNode(meta.mark());
        MapNode traceType = new MapNode(meta.mark());
        MapNode v2Trace = (MapNode) meta.get("trace");
        copyIfExists(traceType, v2Trace, "byte-order", "native-byte-order");
        copyIfExists(traceType, v2Trace, "uuid", "uuid");
        copyIfExists(traceType, meta, "log-levels", "$log-level-aliases");
        copyIfExists(traceType, meta, "$log-levels", "$log-level-aliases");
        if (meta.get("clocks") instanceof MapNode clocks) {
            MapNode v3Clocks = new MapNode(clocks.mark());
            for (Map.Entry<String, YamlNode> c : clocks.entries().entrySet()) {
                v3Clocks.put(c.getKey(), convClock((MapNode) c.getValue()));
            }
            traceType.put("clock-types", v3Clocks);
        }
        MapNode features = new MapNode(v2Trace.mark());
        // a null `fields` is no fields, as for barectf
        MapNode headerFields = v2Trace.get("packet-header-type") instanceof MapNode ph ? ph.map("fields") : null;
        setFeature(features, "magic-field-type", convFtIfExists(headerFields, "magic"), v2Trace.mark());
        setFeature(features, "uuid-field-type", convFtIfExists(headerFields, "uuid"), v2Trace.mark());
        setFeature(
                features, "data-stream-type-id-field-type", convFtIfExists(headerFields, "stream_id"), v2Trace.mark());
        traceType.put("$features", features);
        MapNode streams = (MapNode) meta.get("streams");
        MapNode dsts = new MapNode(streams.mark());
        for (Map.Entry<String, YamlNode> s : streams.entries().entrySet()) {
            dsts.put(s.getKey(), convDst((MapNode) s.getValue(), List.of("metadata", "streams", s.getKey())));
        }
        traceType.put("data-stream-types", dsts);
        if (meta.get("$default-stream") instanceof Scalar def && def.value() != null) {
            if (!(dsts.get(String.valueOf(def.value())) instanceof MapNode d)) {
                throw new ConfigException(
                        def.mark(),
                        "$.metadata.$default-stream",
                        "data stream type `" + def.value() + "` does not exist");
            }
            d.put("$is-default", new Scalar(def.mark(), true));
        }
        if (meta.has("env")) {
            trace.put("environment", meta.get("env").copy());
        }
        trace.put("type", traceType);
        return trace;
    }

    private MapNode convDst(MapNode v2Dst, List<Object> path) throws ConfigException {
        MapNode dst = new MapNode(v2Dst.mark());
        copyIfExists(dst, v2Dst, "$default", "$is-default");
        MapNode pktCtx = (MapNode) v2Dst.get("packet-context-type");
        MapNode pktCtxFields = pktCtx.map("fields");
        if (pktCtxFields == null) {
            // the schema's `required` does not apply to a null `fields`; barectf then fails with a TypeError
            throw new ConfigException(
                    pktCtx.mark(),
                    ConfigPaths.format(with(path, "packet-context-type", "fields")),
                    "expected a mapping holding `packet_size` and `content_size`");
        }
        MapNode erHeaderFields = v2Dst.get("event-header-type") instanceof MapNode eh ? eh.map("fields") : null;
        String beginClock = mappedClock(pktCtxFields.get("timestamp_begin"));
        String endClock = mappedClock(pktCtxFields.get("timestamp_end"));
        if (beginClock != null && endClock != null && !beginClock.equals(endClock)) {
            throw new ConfigException(
                    pktCtxFields.get("timestamp_end").mark(),
                    ConfigPaths.format(with(path, "packet-context-type", "fields", "timestamp_end")),
                    "`timestamp_begin` and `timestamp_end` are not mapped to the same clock type");
        }
        String defClock = null;
        Mark defClockMark = null;
        if (erHeaderFields != null && erHeaderFields.get("timestamp") != null) {
            defClock = mappedClock(erHeaderFields.get("timestamp"));
            defClockMark = erHeaderFields.get("timestamp").mark();
        }
        if (defClock == null && beginClock != null) {
            defClock = beginClock;
            defClockMark = pktCtxFields.get("timestamp_begin").mark();
        }
        if (defClock == null && endClock != null) {
            defClock = endClock;
            defClockMark = pktCtxFields.get("timestamp_end").mark();
        }
        if (defClock != null) {
            dst.put("$default-clock-type-name", new Scalar(defClockMark, defClock));
        }
        MapNode features = new MapNode(v2Dst.mark());
        MapNode pkt = new MapNode(pktCtxFields.mark());
        MapNode er = new MapNode(erHeaderFields == null ? v2Dst.mark() : erHeaderFields.mark());
        pkt.put("total-size-field-type", convFt(pktCtxFields.get("packet_size")));
        pkt.put("content-size-field-type", convFt(pktCtxFields.get("content_size")));
        setFeature(pkt, "beginning-timestamp-field-type", convFtIfExists(pktCtxFields, "timestamp_begin"), pkt.mark());
        setFeature(pkt, "end-timestamp-field-type", convFtIfExists(pktCtxFields, "timestamp_end"), pkt.mark());
        setFeature(
                pkt,
                "discarded-event-records-counter-snapshot-field-type",
                convFtIfExists(pktCtxFields, "events_discarded"),
                pkt.mark());
        setFeature(er, "type-id-field-type", convFtIfExists(erHeaderFields, "id"), er.mark());
        setFeature(er, "timestamp-field-type", convFtIfExists(erHeaderFields, "timestamp"), er.mark());
        features.put("packet", pkt);
        features.put("event-record", er);
        dst.put("$features", features);
        ListNode extra = new ListNode(pktCtxFields.mark());
        List<String> ctfNames = List.of(
                "packet_size",
                "content_size",
                "timestamp_begin",
                "timestamp_end",
                "events_discarded",
                "packet_seq_num");
        for (Map.Entry<String, YamlNode> f : pktCtxFields.entries().entrySet()) {
            if (!ctfNames.contains(f.getKey())) {
                extra.items().add(member(f.getKey(), convFt(f.getValue())));
            }
        }
        if (!extra.items().isEmpty()) {
            dst.put("packet-context-field-type-extra-members", extra);
        }
        if (v2Dst.get("event-context-type") instanceof MapNode ec) {
            dst.put("event-record-common-context-field-type", convFt(ec));
        }
        MapNode erts = new MapNode(v2Dst.get("events").mark());
        for (Map.Entry<String, YamlNode> e :
                ((MapNode) v2Dst.get("events")).entries().entrySet()) {
            MapNode v2Ert = (MapNode) e.getValue();
            MapNode ert = new MapNode(v2Ert.mark());
            copyIfExists(ert, v2Ert, "log-level", "log-level");
            if (v2Ert.get("context-type") instanceof MapNode ct) {
                ert.put("specific-context-field-type", convFt(ct));
            }
            if (v2Ert.get("payload-type") instanceof MapNode pt) {
                ert.put("payload-field-type", convFt(pt));
            }
            erts.put(e.getKey(), ert);
        }
        dst.put("event-record-types", erts);
        return dst;
    }

    private static String mappedClock(YamlNode intFt) {
        if (intFt instanceof MapNode m
                && m.get("property-mappings") instanceof ListNode pm
                && !pm.items().isEmpty()
                && pm.items().getFirst() instanceof MapNode first
                && first.get("name") instanceof Scalar name) {
            return String.valueOf(name.value());
        }
        return null;
    }

    private static void setFeature(MapNode features, String key, YamlNode ft, Mark mark) {
        features.put(key, ft == null ? new Scalar(mark, false) : ft);
    }

    private MapNode convClock(MapNode v2) {
        MapNode c = v2.copy();
        rename(c, "freq", "frequency");
        rename(c, "error-cycles", "precision");
        rename(c, "absolute", "origin-is-unix-epoch");
        rename(c, "return-ctype", "$c-type");
        rename(c, "$return-ctype", "$c-type");
        return c;
    }

    // ---- field types -------------------------------------------------------------------

    private MapNode convFtIfExists(MapNode parent, String key) {
        return parent == null || !parent.has(key) ? null : convFt(parent.get(key));
    }

    private MapNode convFt(YamlNode node) {
        MapNode ft = (MapNode) node;
        String cls = (String) ((Scalar) ft.get("class")).value();
        return switch (cls) {
            case "int", "integer" -> convInt(ft);
            case "enum", "enumeration" -> convEnum(ft);
            case "flt", "float", "floating-point" -> convReal(ft);
            case "str", "string" -> {
                MapNode c = ft.copy();
                c.remove("encoding");
                yield c;
            }
            case "array" -> convArray(ft);
            case "struct", "structure" -> convStruct(ft);
            default -> throw new IllegalStateException("class " + cls + " passed barectf 2's schema");
        };
    }

    private MapNode convInt(MapNode v2) {
        MapNode c = v2.copy();
        boolean signed = c.get("signed") instanceof Scalar s && Boolean.TRUE.equals(s.value());
        Mark clsMark = c.get("class").mark();
        c.put("class", new Scalar(clsMark, signed ? "sint" : "uint"));
        c.remove("signed");
        rename(c, "align", "alignment");
        rename(c, "base", "preferred-display-base");
        c.remove("encoding");
        c.remove("byte-order");
        c.remove("property-mappings");
        return c;
    }

    private MapNode convEnum(MapNode v2) {
        MapNode c = convFt(v2.get("value-type")).copy();
        String cls = (String) ((Scalar) c.get("class")).value();
        c.put("class", new Scalar(v2.get("class").mark(), cls.equals("sint") ? "senum" : "uenum"));
        if (v2.get("members") instanceof ListNode members) {
            MapNode mappings = new MapNode(members.mark());
            BigInteger cur = BigInteger.ZERO;
            for (YamlNode m : members.items()) {
                String label;
                YamlNode value;
                if (m instanceof Scalar s && s.value() instanceof String str) {
                    label = str;
                    value = new Scalar(m.mark(), cur);
                    cur = cur.add(BigInteger.ONE);
                } else {
                    MapNode mm = (MapNode) m;
                    label = String.valueOf(((Scalar) mm.get("label")).value());
                    YamlNode v = mm.get("value");
                    if (v instanceof Scalar sv && sv.value() instanceof BigInteger i) {
                        cur = i.add(BigInteger.ONE);
                        value = sv;
                    } else {
                        ListNode range = ((ListNode) v).copy();
                        cur = ((BigInteger) ((Scalar) range.items().get(1)).value()).add(BigInteger.ONE);
                        value = range;
                    }
                }
                if (!(mappings.get(label) instanceof ListNode)) {
                    mappings.put(label, new ListNode(m.mark()));
                }
                ((ListNode) mappings.get(label)).items().add(value);
            }
            c.put("mappings", mappings);
        }
        return c;
    }

    private MapNode convReal(MapNode v2) {
        MapNode c = v2.copy();
        c.put("class", new Scalar(c.get("class").mark(), "real"));
        rename(c, "align", "alignment");
        MapNode size = (MapNode) c.get("size");
        BigInteger total =
                ((BigInteger) ((Scalar) size.get("exp")).value()).add((BigInteger) ((Scalar) size.get("mant")).value());
        c.put("size", new Scalar(size.mark(), total));
        return c;
    }

    private MapNode convArray(MapNode v2) {
        YamlNode length = v2.get("length");
        boolean dynamic = length instanceof Scalar s && "dynamic".equals(s.value());
        MapNode c = new MapNode(v2.mark());
        c.put("class", new Scalar(v2.get("class").mark(), dynamic ? "dynamic-array" : "static-array"));
        if (!dynamic && length != null) {
            c.put("length", length.copy());
        }
        c.put("element-field-type", convFt(v2.get("element-type")));
        return c;
    }

    private MapNode convStruct(MapNode v2) {
        MapNode c = new MapNode(v2.mark());
        c.put("class", v2.get("class").copy());
        copyIfExists(c, v2, "min-align", "minimum-alignment");
        if (v2.get("fields") instanceof MapNode fields) {
            ListNode members = new ListNode(fields.mark());
            for (Map.Entry<String, YamlNode> f : fields.entries().entrySet()) {
                members.items().add(member(f.getKey(), convFt(f.getValue())));
            }
            c.put("members", members);
        } else if (v2.has("fields")) {
            // a null `fields` is dropped by barectf's conversion too
        }
        return c;
    }

    private static MapNode member(String name, MapNode ft) {
        MapNode inner = new MapNode(ft.mark());
        inner.put("field-type", ft);
        MapNode m = new MapNode(ft.mark());
        m.put(name, inner);
        return m;
    }

    private static void rename(MapNode n, String from, String to) {
        if (n.has(from)) {
            n.put(to, n.remove(from));
        }
    }

    private static void copyIfExists(MapNode dst, MapNode src, String from, String to) {
        if (src != null && src.has(from)) {
            dst.put(to, src.get(from).copy());
        }
    }

    static List<Object> with(List<Object> path, Object... more) {
        List<Object> p = new ArrayList<>(path);
        p.addAll(List.of(more));
        return p;
    }
}
