package dev.hetrace.analysis;

import dev.hetrace.ctf.api.Event;
import java.util.List;
import java.util.Map;

/**
 * A rule compiled for one trace: its action and field handles, with what was learnt of their
 * types. Each rule has handles of its own (the mapping's core and task fields too), so that a
 * handle stays resolved in its event class and a read skips the path lookup.
 */
final class CompiledRule {
    final Mapping.Action does;
    final Mapping.Rule rule;
    final int index;
    /** The function name id when the rule names it with =TEXT, else −1. */
    int constantName = -1;
    /** Whether the function or task-name field is a string (decided at the first event). */
    Boolean stringField;

    // the field roles (null when the rule has none)
    final Event.Field next;
    final Event.Field nextId;
    final Event.Field prev;
    final Event.Field prevId;
    final Event.Field prevState;
    final Event.Field prevPrio;
    final Event.Field nextPrio;
    final String func;
    final Event.Field funcField;
    final Event.Field irq;
    final Event.Field name;
    final String label;
    /** The interrupt's name by number ({@code names}), or null. */
    final String[] numberedNames;
    /** The interrupt's name when the rule gives it as =TEXT, else null. */
    final String constantIrqName;
    /** The kind of interrupt (the label's number: a softirq's numbers are not a hard irq's), −1 for an exit of any kind. */
    int irqClass = -1;

    final Event.Field queue;
    final Event.Field id;
    /** The process of the task an event creates or lists ({@code process}), or of the task a switch leaves ({@code prev-process}). */
    final Event.Field process;
    // a counter's: the field sampled, the series' name and unit, whose it is, what its samples are
    final Event.Field value;
    final String counterName;
    final String counterUnit;
    final boolean perTask;
    final int counterKind;
    // the mapping's fields, read for every event of the rule
    final Event.Field core;
    final Event.Field taskId;
    final Event.Field taskName;

    CompiledRule(Mapping.Rule rule, int index, Mapping m) {
        this.rule = rule;
        this.does = rule.does();
        this.index = index;
        next = handle(rule.field("next"));
        nextId = handle(rule.field("next-id"));
        prev = handle(rule.field("prev"));
        prevId = handle(rule.field("prev-id"));
        prevState = handle(rule.field("prev-state"));
        prevPrio = handle(rule.field("prev-prio"));
        nextPrio = handle(rule.field("next-prio"));
        func = rule.field("func");
        funcField = func == null || func.startsWith("=") ? null : Event.field(func);
        irq = handle(rule.field("irq"));
        String n = rule.field("name");
        constantIrqName = n != null && n.startsWith("=") ? n.substring(1) : null;
        name = constantIrqName != null ? null : handle(n);
        label = rule.field("label");
        numberedNames = rule.names().isEmpty() ? null : rule.names().toArray(String[]::new);
        queue = handle(rule.field("queue"));
        id = handle(rule.field("id"));
        process = handle(rule.does() == Mapping.Action.SWITCH ? rule.field("prev-process") : rule.field("process"));
        String v = rule.field("value");
        value = handle(v);
        counterName = text(rule.field("name"), rule.event() + "." + v);
        counterUnit = text(rule.field("unit"), "");
        perTask = "task".equals(rule.field("per"));
        counterKind = "total".equals(rule.field("as")) ? StateModel.COUNTER_TOTAL : StateModel.COUNTER_VALUE;

        core = handle(m.core());
        taskId = handle(m.taskId());
        taskName = handle(m.taskName());
    }

    /** A text role's value ({@code =TEXT} or TEXT), else {@code otherwise}. */
    private static String text(String given, String otherwise) {
        return given == null ? otherwise : given.startsWith("=") ? given.substring(1) : given;
    }

    private static Event.Field handle(String path) {
        return path == null ? null : Event.field(path);
    }

    /** The rule of event classes no rule maps. */
    static final CompiledRule NONE = new CompiledRule(
            new Mapping.Rule("", Mapping.Action.ENTER, Map.of()),
            -1,
            new Mapping("none", List.of(), null, null, null, null, null, List.of()));
}
