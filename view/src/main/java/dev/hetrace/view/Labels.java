package dev.hetrace.view;

import dev.hetrace.analysis.StateModel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The names intervals are drawn with (tasks, functions, interrupts, task states), each with a
 * color that depends on the name alone, so that a task or function has the same color in every
 * view, on every core and in every session.
 */
public final class Labels {
    /** Distinct, readable on white; a name's color is its hash modulo the palette. */
    static final String[] PALETTE = {
        "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f",
        "#3b6e8f", "#d37295", "#8cd17d", "#b6992d", "#499894", "#86bcb6", "#e15759", "#79706e",
        "#a0cbe8", "#ffbe7d", "#f1ce63", "#d4a6c8", "#6a51a3", "#2ca25f", "#de6f3e", "#5f9ed1"
    };

    /** Task states keep the colors people expect (running green, preempted orange, blocked red, runnable yellow, dead dark grey). */
    private static final String[] STATE_COLORS = {
        "#3aa655", "#d9d9d9", "#f39c12", "#d62728", "#9e9e9e", "#f7d154", "#5b5b5b"
    };

    private final List<String> names = new ArrayList<>();
    private final List<String> colors = new ArrayList<>();
    private final Map<String, Integer> ids = new HashMap<>();

    /** The label of task state {@code state} (a {@link StateModel} state). */
    static String state(int state) {
        return "(" + StateModel.stateName(state) + ")";
    }

    /** The id of {@code name}, added when new. */
    public int id(String name) {
        Integer id = ids.get(name);
        if (id != null) {
            return id;
        }
        names.add(name);
        colors.add(color(name));
        ids.put(name, names.size() - 1);
        return names.size() - 1;
    }

    /** The id of {@code name}, or −1. */
    public int find(String name) {
        return ids.getOrDefault(name, -1);
    }

    public String name(int id) {
        return names.get(id);
    }

    public String color(int id) {
        return colors.get(id);
    }

    public int size() {
        return names.size();
    }

    /** The color of {@code name}: FNV-1a of its UTF-8 bytes picks the palette entry. */
    static String color(String name) {
        for (int s = 0; s < STATE_COLORS.length; s++) {
            if (name.equals(state(s))) {
                return STATE_COLORS[s];
            }
        }
        int h = 0x811c9dc5;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x01000193;
        }
        return PALETTE[Integer.remainderUnsigned(h, PALETTE.length)];
    }
}
