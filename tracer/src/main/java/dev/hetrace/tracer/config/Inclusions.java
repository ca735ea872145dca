package dev.hetrace.tracer.config;

import dev.hetrace.tracer.config.YamlNode.ListNode;
import dev.hetrace.tracer.config.YamlNode.MapNode;
import dev.hetrace.tracer.config.YamlNode.Scalar;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tree operations barectf applies to both configuration formats before building its model:
 * {@code $include} (search the inclusion directories, then the standard partial configurations;
 * no recursive inclusion), the overlay merge both inclusion and inheritance use, field type
 * alias resolution (with cycle detection) and field type inheritance.
 */
class Inclusions {
    /** Field type properties that hold a nested field type, in barectf 2 and 3. */
    private static final List<String> FT_PROP_NAMES =
            List.of("$inherit", "inherit", "value-type", "element-type", "element-field-type");

    private final List<Path> includeDirs;
    private final int majorVersion;
    private final Path rootFile;
    private final List<String> includeStack = new ArrayList<>();
    private final Set<String> resolvedAliases = new HashSet<>();

    /** Reads an included file's root node and validates it with the schema of the node it patches. */
    interface BaseIncludeProcessor {
        MapNode process(MapNode overlay, List<Object> path) throws ConfigException;
    }

    interface ChildrenIncludeProcessor {
        void process(MapNode node, List<Object> path) throws ConfigException;
    }

    Inclusions(Path rootFile, List<Path> includeDirs, int majorVersion) {
        this.rootFile = rootFile;
        this.includeDirs = List.copyOf(includeDirs);
        this.majorVersion = majorVersion;
    }

    int majorVersion() {
        return majorVersion;
    }

    private String structMembersProp() {
        return majorVersion == 2 ? "fields" : "members";
    }

    /**
     * Loads an included file: the inclusion directories in order, then the standard partial
     * configurations of this format (barectf's package inclusion directory, here resources).
     */
    private MapNode loadInclude(String name, Mark at, List<Object> path) throws ConfigException {
        for (Path dir : includeDirs) {
            Path p = dir.resolve(name);
            Path real;
            try {
                real = p.toRealPath();
            } catch (IOException e) {
                continue;
            }
            if (!Files.isRegularFile(real)) {
                continue;
            }
            String key = real.toString();
            if (includeStack.contains(key)) {
                throw new ConfigException(
                        at, ConfigPaths.format(path) + ".$include", "cannot include `" + real + "` recursively");
            }
            includeStack.add(key);
            return asIncludedMap(YamlLoader.load(real).root(), path);
        }
        String resource = "/dev/hetrace/tracer/include/" + majorVersion + "/" + name;
        if (!name.contains("..") && !name.startsWith("/")) {
            try (InputStream in = Inclusions.class.getResourceAsStream(resource)) {
                if (in != null) {
                    String key = "<standard>/" + majorVersion + "/" + name;
                    if (includeStack.contains(key)) {
                        throw new ConfigException(
                                at,
                                ConfigPaths.format(path) + ".$include",
                                "cannot include `" + name + "` recursively");
                    }
                    includeStack.add(key);
                    return asIncludedMap(
                            YamlLoader.load(Path.of(name), new InputStreamReader(in, StandardCharsets.UTF_8))
                                    .root(),
                            path);
                }
            } catch (IOException e) {
                throw new ConfigException(at, null, "cannot read standard inclusion `" + name + "`: " + e.getMessage());
            }
        }
        throw new ConfigException(
                at,
                ConfigPaths.format(path) + ".$include",
                "cannot include file `" + name + "`: not found in the inclusion directories " + includeDirs
                        + " nor among the standard partial configurations");
    }

    private static MapNode asIncludedMap(YamlNode root, List<Object> path) throws ConfigException {
        if (root instanceof MapNode m) {
            return m;
        }
        // barectf's schema for the included node rejects anything but a mapping
        throw new ConfigException(
                root.mark(),
                ConfigPaths.format(path),
                "an included file must hold a mapping, got " + YamlNode.kind(root));
    }

    /** barectf's {@code _process_node_include}. */
    MapNode processNodeInclude(
            MapNode lastOverlay, List<Object> path, BaseIncludeProcessor base, ChildrenIncludeProcessor children)
            throws ConfigException {
        if (children != null) {
            children.process(lastOverlay, path);
        }
        if (!lastOverlay.has("$include")) {
            return lastOverlay;
        }
        YamlNode includeNode = lastOverlay.remove("$include");
        List<Scalar> names = new ArrayList<>();
        if (includeNode instanceof Scalar s && s.value() instanceof String) {
            names.add(s);
        } else if (includeNode instanceof ListNode l) {
            for (YamlNode n : l.items()) {
                names.add((Scalar) n); // the include-prop schema made them strings
            }
        }
        MapNode baseNode = null;
        for (Scalar name : names) {
            MapNode overlay = loadInclude((String) name.value(), name.mark(), path);
            overlay = base.process(overlay, path);
            includeStack.removeLast();
            if (baseNode == null) {
                baseNode = overlay;
            } else {
                updateNode(baseNode, overlay);
            }
        }
        if (baseNode == null) {
            return lastOverlay;
        }
        updateNode(baseNode, lastOverlay);
        return baseNode;
    }

    /** barectf's {@code _update_node}: patch {@code base} with {@code overlay}. */
    void updateNode(MapNode base, MapNode overlay) {
        for (Map.Entry<String, YamlNode> e : overlay.entries().entrySet()) {
            String key = e.getKey();
            YamlNode olay = e.getValue();
            YamlNode baseValue = base.get(key);
            if (baseValue == null && !base.has(key)) {
                base.put(key, olay.copy());
            } else if (olay instanceof MapNode om && baseValue instanceof MapNode bm) {
                updateNode(bm, om);
            } else if (olay instanceof ListNode ol && baseValue instanceof ListNode bl) {
                if (key.equals("members") && majorVersion == 3) {
                    // barectf 3 members are an ordered map written as a list of one-entry maps:
                    // an overlay member replaces the base member of the same name
                    updateMembers(bl, ol);
                } else {
                    for (YamlNode item : ol.items()) {
                        bl.items().add(item.copy());
                    }
                }
            } else {
                base.put(key, olay.copy());
            }
        }
    }

    private void updateMembers(ListNode base, ListNode overlay) {
        for (YamlNode olayItem : overlay.items()) {
            boolean append = true;
            if (olayItem instanceof MapNode om && om.entries().size() == 1) {
                String name = om.entries().keySet().iterator().next();
                for (YamlNode baseItem : base.items()) {
                    // barectf tests the overlay's size here, not the base item's; so do we
                    if (baseItem instanceof MapNode bm
                            && !bm.entries().isEmpty()
                            && bm.entries().keySet().iterator().next().equals(name)) {
                        updateNode(bm, om);
                        append = false;
                        break;
                    }
                }
            }
            if (append) {
                base.items().add(olayItem.copy());
            }
        }
    }

    /** Member nodes and the property of each holding the member's field type, as barectf iterates them. */
    private List<Object[]> structMemberFts(YamlNode members) {
        List<Object[]> out = new ArrayList<>();
        if (members instanceof ListNode l) {
            for (YamlNode item : l.items()) {
                if (item instanceof MapNode m && !m.entries().isEmpty()) {
                    Map.Entry<String, YamlNode> first =
                            m.entries().entrySet().iterator().next();
                    if (first.getValue() instanceof MapNode val) {
                        out.add(new Object[] {val, "field-type"});
                    } else {
                        out.add(new Object[] {m, first.getKey()});
                    }
                }
            }
        } else if (members instanceof MapNode m) {
            for (String name : m.entries().keySet()) {
                out.add(new Object[] {m, name});
            }
        }
        return out;
    }

    /** barectf's {@code _resolve_ft_alias}: replaces alias names under {@code parent[key]} by copies of their field types. */
    void resolveFtAlias(MapNode aliases, MapNode parent, String key, List<Object> ctxPath, Set<String> aliasSet)
            throws ConfigException {
        if (!parent.has(key)) {
            return;
        }
        YamlNode node = parent.get(key);
        if (node instanceof Scalar s && s.value() == null) {
            return;
        }
        if (aliasSet == null) {
            aliasSet = new HashSet<>();
        }
        if (node instanceof Scalar s && s.value() instanceof String alias) {
            if (!aliases.has(alias)) {
                throw new ConfigException(
                        s.mark(), ConfigPaths.format(ctxPath), "field type alias `" + alias + "` does not exist");
            }
            if (!resolvedAliases.contains(alias)) {
                if (aliasSet.contains(alias)) {
                    throw new ConfigException(
                            s.mark(),
                            ConfigPaths.format(ctxPath),
                            "cycle detected while resolving the field type alias `" + alias + "`");
                }
                aliasSet.add(alias);
                resolveFtAlias(aliases, aliases, alias, ctxPath, aliasSet);
                resolvedAliases.add(alias);
            }
            parent.put(key, aliases.get(alias).copy());
            return;
        }
        if (!(node instanceof MapNode m)) {
            return;
        }
        for (String pkey : FT_PROP_NAMES) {
            resolveFtAlias(aliases, m, pkey, ctxPath, aliasSet);
        }
        YamlNode members = m.get(structMembersProp());
        if (members != null) {
            if (!(members instanceof MapNode || members instanceof ListNode)) {
                // barectf fails on an assertion here (it walks the members to resolve aliases)
                throw new ConfigException(
                        members.mark(),
                        ConfigPaths.format(ctxPath),
                        "`" + structMembersProp()
                                + "` of a structure field type must be "
                                + (majorVersion == 2 ? "a mapping" : "a sequence")
                                + " when field type aliases are in use, got " + YamlNode.kind(members));
            }
            for (Object[] mf : structMemberFts(members)) {
                resolveFtAlias(aliases, (MapNode) mf[0], (String) mf[1], ctxPath, aliasSet);
            }
        }
    }

    /**
     * barectf's {@code _apply_ft_inheritance}: {@code $inherit} (or format 2's {@code inherit})
     * makes the node an overlay on its base.
     */
    void applyFtInheritance(MapNode parent, String key) {
        if (!(parent.get(key) instanceof MapNode node)) {
            return;
        }
        for (String pkey : FT_PROP_NAMES) {
            applyFtInheritance(node, pkey);
        }
        YamlNode members = node.get(structMembersProp());
        if (members != null) {
            for (Object[] mf : structMemberFts(members)) {
                applyFtInheritance((MapNode) mf[0], (String) mf[1]);
            }
        }
        if (node.has("inherit")) {
            node.put("$inherit", node.remove("inherit"));
        }
        if (node.get("$inherit") instanceof MapNode) {
            applyFtInheritance(node, "$inherit");
            MapNode base = (MapNode) node.remove("$inherit");
            updateNode(base, node);
            parent.put(key, base);
        }
    }

    Path rootFile() {
        return rootFile;
    }
}
