package dev.hetrace.analysis;

import dev.hetrace.ctf.FileFailure;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * What the events of a trace mean to the state model: which events switch tasks, enter and exit
 * functions and interrupts, send and receive messages, and which fields carry the task, the
 * function, the interrupt, the queue or the message id. Read from YAML (see docs/analysis.md)
 * or taken from the presets, which apply when a trace's metadata has their events.
 *
 * @param name      what the mapping is called in messages
 * @param detect    events that must all be in a trace's metadata for a preset to apply
 * @param core      field giving the CPU within a trace (null: one core per trace)
 * @param taskId    context field giving the task of every event (null: the task switched to)
 * @param taskName  context field naming that task
 * @param idleName  regular expression: tasks so named are the idle task
 * @param idleId    tasks with this id are the idle task (null: none); with a {@code core} field,
 *                  each core has its own (Linux's swapper/N all have tid 0)
 * @param states    how a switch's {@code prev-state} is read ({@link States})
 * @param rules     what each mapped event does
 */
public record Mapping(
        String name,
        List<String> detect,
        String core,
        String taskId,
        String taskName,
        String idleName,
        Long idleId,
        States states,
        List<Rule> rules) {
    public Mapping {
        detect = List.copyOf(detect);
        rules = List.copyOf(rules);
        states = states == null ? States.ZERO_PREEMPTED : states;
    }

    public Mapping(
            String name,
            List<String> detect,
            String core,
            String taskId,
            String taskName,
            String idleName,
            Long idleId,
            List<Rule> rules) {
        this(name, detect, core, taskId, taskName, idleName, idleId, States.ZERO_PREEMPTED, rules);
    }

    /** How a switch's {@code prev-state} field says why the task left its core. */
    public enum States {
        /** 0: preempted (still runnable); anything else: blocked. */
        ZERO_PREEMPTED("zero-preempted"),
        /**
         * Linux's {@code sched_switch}: runnable, blocked or dead, as the trace's kernel version
         * encodes it ({@link LinuxTaskStates}).
         */
        LINUX("linux");

        final String word;

        States(String word) {
            this.word = word;
        }
    }

    /** What an event does to the state. */
    public enum Action {
        /**
         * {@code prev-process}: the process (thread group) of the task switched out, where the
         * event carries the current task's (perf's {@code perf_pid}, LTTng's {@code pid} context).
         */
        SWITCH(
                "switch",
                Set.of("next"),
                Set.of("next-id", "prev", "prev-id", "prev-state", "prev-prio", "next-prio", "prev-process")),
        ENTER("enter", Set.of("func"), Set.of()),
        /** Without {@code func}: the innermost call (Linux's old {@code exit_syscall}). */
        EXIT("exit", Set.of(), Set.of("func")),
        /** {@code names}: the interrupts' names by number (a list), where the event has no name field. */
        IRQ_ENTRY("irq-entry", Set.of("irq"), Set.of("name", "label", "names")),
        /** With {@code label}, only an entry of the same label is closed (a softirq's exit never closes irq 1). */
        IRQ_EXIT("irq-exit", Set.of(), Set.of("irq", "label")),
        SEND("send", Set.of("id"), Set.of("queue")),
        RECEIVE("receive", Set.of("id"), Set.of("queue")),
        /** The task is about to block on a queue (an RTOS hook at the start of a blocking receive). */
        WAIT("wait", Set.of("queue"), Set.of()),
        /** Task {@code id} is made runnable ({@code name}: its name, for a task not met before). */
        WAKE("wake", Set.of("id"), Set.of("name")),
        /**
         * Task {@code id} is created (a new task, whatever the id named before); {@code process}:
         * the process it belongs to (Linux's tgid: a thread's is its creator's, a new process's its own id).
         */
        FORK("fork", Set.of("id"), Set.of("name", "process")),
        /** The task ({@code id}, default: the one running) runs a new program: renamed after its file's base name. */
        EXEC("exec", Set.of("name"), Set.of("id")),
        /** The task ({@code id}, default: the one running) is named anew. */
        RENAME("rename", Set.of("name"), Set.of("id")),
        /** The task ({@code id}, default: the one running) is exiting: its next switch out is its death. */
        TASK_EXIT("task-exit", Set.of(), Set.of("id")),
        /** Task {@code id} is gone (reaped): its id may name another task afterwards. */
        TASK_FREE("task-free", Set.of("id"), Set.of()),
        /**
         * Task {@code id} exists, named {@code name}, in process {@code process} (a tracer's list of
         * the tasks alive when it began).
         */
        TASK_INFO("task-info", Set.of("id"), Set.of("name", "process")),
        /**
         * The event samples a counter: its numeric field {@code value}, a series per core ({@code per: core},
         * the default) or per task ({@code per: task}) named {@code name} (default: the event's name and the
         * field's) in {@code unit}; {@code as: total} for a running total (shown as its rate), else a value.
         */
        COUNTER("counter", Set.of("value"), Set.of("name", "unit", "per", "as"));

        final String word;
        final Set<String> required;
        final Set<String> optional;

        Action(String word, Set<String> required, Set<String> optional) {
            this.word = word;
            this.required = required;
            this.optional = optional;
        }

        static Action of(String word) {
            for (Action a : values()) {
                if (a.word.equals(word)) {
                    return a;
                }
            }
            return null;
        }
    }

    /**
     * One event's meaning: its fields by role (a field path, or {@code =TEXT} for a constant,
     * e.g. {@code func: =read} for a generic {@code read_entry}/{@code read_exit} pair). An
     * event name ending with {@code *} is a pattern: the rule applies to every event so
     * starting, and {@code =*} is what the star matched.
     */
    public record Rule(String event, Action does, Map<String, String> fields, List<String> names) {
        public Rule {
            fields = Map.copyOf(fields);
            names = List.copyOf(names);
        }

        public Rule(String event, Action does, Map<String, String> fields) {
            this(event, does, fields, List.of());
        }

        public String field(String role) {
            return fields.get(role);
        }
    }

    /** The names of the presets, in the order they are tried. */
    public static final List<String> PRESETS = List.of(
            "rtos", "zephyr", "lttng-kernel", "perf-kernel", "lttng-ust-cyg-profile", "lttng-ust-cyg-profile-fast");

    /** The presets parsed so far: resources of this jar, the same every time (a mapping is immutable). */
    private static final Map<String, Mapping> PARSED = new ConcurrentHashMap<>();

    /**
     * A preset by name, parsed once per process: {@link #detect} tries every preset for every
     * trace, and a board's index would otherwise parse them again for each of its traces.
     */
    public static Mapping preset(String name) {
        return PARSED.computeIfAbsent(name, Mapping::parsePreset); // an unknown name throws, and is not kept
    }

    private static Mapping parsePreset(String name) {
        String resource = "presets/" + name + ".yaml";
        try (InputStream in = Mapping.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException(
                        "no preset '" + name + "' (presets: " + String.join(", ", PRESETS) + ")");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "preset " + name);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The mapping for a trace with these events: every preset whose {@code detect} events are all
     * there, then generic {@code X_entry}/{@code X_exit} pairs as functions named X; rules for
     * events the trace lacks are left out. Null when nothing applies.
     */
    public static Mapping detect(Set<String> eventNames) {
        return detect(eventNames, Set.of());
    }

    /**
     * As {@link #detect(Set)}, for a trace whose events carry these context fields: when no
     * preset says whose an event is (a task field or switches) and every event carries a thread
     * id ({@code vtid}, as LTTng-UST's context adds it), each event belongs to its thread
     * ({@link #withThreadContext}).
     */
    public static Mapping detect(Set<String> eventNames, Set<String> contextFields) {
        List<Mapping> applied = new ArrayList<>();
        for (String p : PRESETS) {
            Mapping m = preset(p);
            if (eventNames.containsAll(m.detect())) {
                applied.add(m);
            }
        }
        Set<String> mapped = new HashSet<>();
        applied.forEach(m -> m.restrictedTo(eventNames).rules().forEach(r -> mapped.add(r.event())));
        Mapping generic = generic(eventNames);
        generic = new Mapping(
                generic.name(),
                List.of(),
                null,
                null,
                null,
                null,
                null,
                generic.rules().stream()
                        .filter(r -> !mapped.contains(r.event()))
                        .toList());
        if (!generic.rules().isEmpty()) {
            applied.add(generic);
        }
        return applied.isEmpty()
                ? null
                : combine(applied).restrictedTo(eventNames).withThreadContext(contextFields);
    }

    /**
     * This mapping, where it says nothing of whose each event is (no task field, no switch) and
     * the events carry a thread id in their context, with the task taken from that context:
     * {@code vtid} (or {@code tid}) and {@code procname} as LTTng-UST adds them. Without it,
     * every thread's calls would be one task's, paired across threads.
     */
    public Mapping withThreadContext(Set<String> contextFields) {
        if (taskId != null || rules.stream().anyMatch(r -> r.does() == Action.SWITCH)) {
            return this;
        }
        String id = contextFields.contains("vtid") ? "vtid" : contextFields.contains("tid") ? "tid" : null;
        if (id == null) {
            return this;
        }
        String n = contextFields.contains("procname") ? "procname" : taskName;
        return new Mapping(name, detect, core, id, n, idleName, idleId, states, rules);
    }

    /** Functions from the events named {@code X_entry} and {@code X_exit} (or {@code X:entry}, {@code X_begin}...). */
    static Mapping generic(Set<String> eventNames) {
        List<Rule> rules = new ArrayList<>();
        for (String[] pair : new String[][] {{"_entry", "_exit"}, {"_begin", "_end"}, {"_start", "_end"}}) {
            for (String e : eventNames) {
                if (e.endsWith(pair[0]) && e.length() > pair[0].length()) {
                    String stem = e.substring(0, e.length() - pair[0].length());
                    if (eventNames.contains(stem + pair[1])) {
                        rules.add(new Rule(e, Action.ENTER, Map.of("func", "=" + stem)));
                        rules.add(new Rule(stem + pair[1], Action.EXIT, Map.of("func", "=" + stem)));
                    }
                }
            }
        }
        rules.sort(Comparator.comparing(Rule::event));
        return new Mapping("generic-entry-exit", List.of(), null, null, null, null, null, rules);
    }

    /** Several mappings as one: the rules of all (the first for an event wins), the first's fields. */
    public static Mapping combine(List<Mapping> mappings) {
        Map<String, Rule> rules = new LinkedHashMap<>();
        String core = null;
        String taskId = null;
        String taskName = null;
        String idleName = null;
        Long idleId = null;
        States states = States.ZERO_PREEMPTED;
        Set<String> names = new LinkedHashSet<>();
        for (Mapping m : mappings) {
            states = states != States.ZERO_PREEMPTED ? states : m.states();
            names.add(m.name());
            for (Rule r : m.rules()) {
                rules.putIfAbsent(r.event(), r);
            }
            core = core != null ? core : m.core();
            taskId = taskId != null ? taskId : m.taskId();
            taskName = taskName != null ? taskName : m.taskName();
            idleName = idleName != null ? idleName : m.idleName();
            idleId = idleId != null ? idleId : m.idleId();
        }
        return new Mapping(
                String.join("+", names),
                List.of(),
                core,
                taskId,
                taskName,
                idleName,
                idleId,
                states,
                new ArrayList<>(rules.values()));
    }

    /**
     * This mapping for a trace with these events: without the rules for events it lacks, and
     * with a rule for each event a pattern rule ({@code syscall_entry_*}, {@code x86_irq_vectors_*_entry})
     * matches, where a constant {@code =*} becomes what the star matched ({@code read}).
     */
    public Mapping restrictedTo(Set<String> eventNames) {
        Map<String, Rule> out = new LinkedHashMap<>();
        for (Rule r : rules) {
            int star = r.event().indexOf('*');
            if (star >= 0) {
                String prefix = r.event().substring(0, star);
                String suffix = r.event().substring(star + 1);
                for (String e : new TreeSet<>(eventNames)) {
                    if (e.startsWith(prefix) && e.endsWith(suffix) && e.length() > prefix.length() + suffix.length()) {
                        String matched = e.substring(prefix.length(), e.length() - suffix.length());
                        Map<String, String> fields = new LinkedHashMap<>();
                        r.fields().forEach((k, v) -> fields.put(k, v.equals("=*") ? "=" + matched : v));
                        out.putIfAbsent(e, new Rule(e, r.does(), fields, r.names()));
                    }
                }
            } else if (eventNames.contains(r.event())) {
                out.putIfAbsent(r.event(), r);
            }
        }
        return new Mapping(
                name, detect, core, taskId, taskName, idleName, idleId, states, new ArrayList<>(out.values()));
    }

    /** A mapping from a YAML file; errors name the file and line. */
    public static Mapping read(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw FileFailure.of("read", file, e);
        }
        return parse(text, file.toString());
    }

    /** A mapping from YAML text; {@code source} names it in errors. */
    public static Mapping parse(String yaml, String source) {
        Node root;
        try {
            root = new Yaml(new LoaderOptions()).compose(new StringReader(yaml));
        } catch (MarkedYAMLException e) {
            throw new MappingException(source + ":" + (e.getProblemMark().getLine() + 1) + ": " + e.getProblem());
        }
        if (!(root instanceof MappingNode top)) {
            throw new MappingException(source + ":1: expected a mapping with name, events...");
        }
        Map<String, Node> keys =
                entries(top, source, Set.of("name", "detect", "core", "task", "idle", "states", "events"));
        String name = keys.containsKey("name") ? scalar(keys.get("name"), source, "name") : source;
        List<String> detect = new ArrayList<>();
        if (keys.get("detect") != null) {
            if (!(keys.get("detect") instanceof SequenceNode seq)) {
                throw error(source, keys.get("detect"), "detect: expected a list of event names");
            }
            for (Node n : seq.getValue()) {
                detect.add(scalar(n, source, "detect"));
            }
        }
        String core = keys.containsKey("core") ? scalar(keys.get("core"), source, "core") : null;
        String taskId = null;
        String taskName = null;
        if (keys.get("task") != null) {
            Map<String, Node> t = entries(
                    asMapping(keys.get("task"), source, "task: expected {id: FIELD, name: FIELD}"),
                    source,
                    Set.of("id", "name"));
            taskId = t.containsKey("id") ? scalar(t.get("id"), source, "task.id") : null;
            taskName = t.containsKey("name") ? scalar(t.get("name"), source, "task.name") : null;
        }
        String idleName = null;
        Long idleId = null;
        if (keys.get("idle") != null) {
            Map<String, Node> t = entries(
                    asMapping(keys.get("idle"), source, "idle: expected {name: REGEX} or {id: N}"),
                    source,
                    Set.of("id", "name"));
            idleName = t.containsKey("name") ? scalar(t.get("name"), source, "idle.name") : null;
            if (idleName != null) {
                try {
                    Pattern.compile(idleName);
                } catch (PatternSyntaxException e) {
                    throw error(source, t.get("name"), "idle.name: not a regular expression: " + e.getDescription());
                }
            }
            if (t.containsKey("id")) {
                try {
                    idleId = Long.parseLong(scalar(t.get("id"), source, "idle.id"));
                } catch (NumberFormatException e) {
                    throw error(source, t.get("id"), "idle.id: expected an integer");
                }
            }
        }
        States states = States.ZERO_PREEMPTED;
        if (keys.get("states") != null) {
            String w = scalar(keys.get("states"), source, "states");
            states = Arrays.stream(States.values())
                    .filter(x -> x.word.equals(w))
                    .findFirst()
                    .orElseThrow(() -> error(
                            source, keys.get("states"), "states: expected linux or zero-preempted, got '" + w + "'"));
        }
        List<Rule> rules = new ArrayList<>();
        if (!(keys.get("events") instanceof SequenceNode events)) {
            throw error(
                    source,
                    keys.getOrDefault("events", top),
                    "expected `events`, a list of {event: NAME, does: ACTION, ...}");
        }
        Set<String> seen = new LinkedHashSet<>();
        for (Node n : events.getValue()) {
            MappingNode m = asMapping(n, source, "expected {event: NAME, does: ACTION, FIELD-ROLE: PATH...}");
            Map<String, String> fields = new LinkedHashMap<>();
            List<String> numbered = new ArrayList<>();
            for (NodeTuple t : m.getValue()) {
                String k = scalar(t.getKeyNode(), source, "key");
                if (k.equals("names")) {
                    if (!(t.getValueNode() instanceof SequenceNode list)) {
                        throw error(
                                source, t.getValueNode(), "names: expected a list of names, the first for number 0");
                    }
                    for (Node x : list.getValue()) {
                        numbered.add(scalar(x, source, "names"));
                    }
                    fields.put(k, "");
                    continue;
                }
                fields.put(k, scalar(t.getValueNode(), source, k));
            }
            String event = fields.remove("event");
            String does = fields.remove("does");
            if (event == null || does == null) {
                throw error(source, n, "expected {event: NAME, does: ACTION, ...}");
            }
            Action a = Action.of(does);
            if (a == null) {
                throw error(
                        source,
                        n,
                        "does: '" + does + "' is not one of "
                                + String.join(
                                        ", ",
                                        Arrays.stream(Action.values())
                                                .map(x -> x.word)
                                                .toList()));
            }
            for (String role : a.required) {
                if (!fields.containsKey(role)) {
                    throw error(source, n, event + ": '" + does + "' needs the field role '" + role + "'");
                }
            }
            for (String role : fields.keySet()) {
                if (!a.required.contains(role) && !a.optional.contains(role)) {
                    throw error(
                            source,
                            n,
                            event + ": '" + role + "' is not a field role of '" + does + "' (roles: "
                                    + String.join(", ", new TreeSet<>(union(a.required, a.optional))) + ")");
                }
            }
            if (!seen.add(event)) {
                throw error(source, n, "event '" + event + "' is mapped twice");
            }
            fields.remove("names");
            if (a == Action.COUNTER) {
                checkChoice(source, n, event, "per", fields.get("per"), "core", "task");
                checkChoice(source, n, event, "as", fields.get("as"), "value", "total");
            }
            rules.add(new Rule(event, a, fields, numbered));
        }
        return new Mapping(name, detect, core, taskId, taskName, idleName, idleId, states, rules);
    }

    private static void checkChoice(String source, Node n, String event, String role, String given, String... words) {
        if (given != null && !Arrays.asList(words).contains(given)) {
            throw error(
                    source,
                    n,
                    event + ": " + role + ": expected " + String.join(" or ", words) + ", got '" + given + "'");
        }
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> s = new LinkedHashSet<>(a);
        s.addAll(b);
        return s;
    }

    private static Map<String, Node> entries(MappingNode m, String source, Set<String> allowed) {
        Map<String, Node> out = new LinkedHashMap<>();
        for (NodeTuple t : m.getValue()) {
            String k = scalar(t.getKeyNode(), source, "key");
            if (!allowed.contains(k)) {
                throw error(
                        source,
                        t.getKeyNode(),
                        "unknown key '" + k + "' (expected one of " + String.join(", ", new TreeSet<>(allowed)) + ")");
            }
            out.put(k, t.getValueNode());
        }
        return out;
    }

    private static MappingNode asMapping(Node n, String source, String expected) {
        if (!(n instanceof MappingNode m)) {
            throw error(source, n, expected);
        }
        return m;
    }

    private static String scalar(Node n, String source, String what) {
        if (!(n instanceof ScalarNode s) || s.getValue().isBlank()) {
            throw error(source, n, what + ": expected a non-empty value");
        }
        return s.getValue();
    }

    private static MappingException error(String source, Node n, String message) {
        return new MappingException(source + ":" + (n.getStartMark().getLine() + 1) + ": " + message);
    }
}
