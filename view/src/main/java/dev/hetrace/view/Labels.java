package dev.hetrace.view;

import dev.hetrace.analysis.StateModel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The names intervals are drawn with (tasks, functions, interrupts, task states), each with a
 * color. The names of a trace set never share a color: each name prefers the palette entry its
 * hash picks, and the names, taken in alphabetical order, take the next free entry when theirs is
 * taken (the palette grows past its hand-picked colors when the names are more). A name's color
 * therefore depends on the trace set's names alone, not on the order they were met in: the same
 * in every view, on every core and in every session of that trace set. Task states are not hues:
 * they are neutral greys here, and the app draws a task's states as patterns of the task's own
 * color (running solid, preempted striped, blocked hatched grey, waiting dotted).
 */
public final class Labels {
    /**
     * Hand-picked, readable on white, none of them grey (greys are the states'), the most distinct
     * first: a trace set's names take as few of them as they need, at least the first 12.
     */
    static final String[] PALETTE = {
        "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#6a51a3",
        "#a6a23a", "#8f2d56", "#a0cbe8", "#ffbe7d", "#2b8c8c", "#8cd17d", "#d37295", "#3b4e8f", "#c9852b", "#d4a6c8",
        "#5f9ed1", "#b6992d", "#de6f3e", "#1f6b3a"
    };

    /** How many of the palette's first colors a trace set with fewer names takes. */
    static final int FIRST = 12;

    /** The states' neutral colors (running, idle, preempted, blocked, waiting, runnable, dead): swatches and tables only. */
    private static final String[] STATE_COLORS = {
        "#5a5a5a", "#e6e6e6", "#9a9a9a", "#7a7a7a", "#c4c4c4", "#adadad", "#3a3a3a"
    };

    private final List<String> names = new ArrayList<>();
    private final Map<String, Integer> ids = new HashMap<>();
    /** The colors by id, assigned once every name is known (null: a name came since). */
    private volatile String[] colors;

    /** The label of task state {@code state} (a {@link StateModel} state). */
    static String state(int state) {
        return "(" + StateModel.stateName(state) + ")";
    }

    /** The state whose label {@code name} is, or −1. */
    static int stateOf(String name) {
        for (int s = 0; s < STATE_COLORS.length; s++) {
            if (name.equals(state(s))) {
                return s;
            }
        }
        return -1;
    }

    /** The id of {@code name}, added when new. */
    public synchronized int id(String name) {
        Integer id = ids.get(name);
        if (id != null) {
            return id;
        }
        names.add(name);
        ids.put(name, names.size() - 1);
        colors = null;
        return names.size() - 1;
    }

    /** The id of {@code name}, or −1. */
    public synchronized int find(String name) {
        return ids.getOrDefault(name, -1);
    }

    public synchronized String name(int id) {
        return names.get(id);
    }

    public String color(int id) {
        String[] c = colors;
        if (c == null) {
            c = assign();
        }
        return c[id];
    }

    public synchronized int size() {
        return names.size();
    }

    /** The colors of every name: states their grey, the others distinct entries of the palette. */
    private synchronized String[] assign() {
        if (colors != null) {
            return colors;
        }
        String[] out = new String[names.size()];
        List<String> others = new ArrayList<>();
        for (int i = 0; i < out.length; i++) {
            int s = stateOf(names.get(i));
            if (s >= 0) {
                out[i] = STATE_COLORS[s];
            } else {
                others.add(names.get(i));
            }
        }
        // as few of the hand-picked colors as the names need (the first ones are the most distinct)
        String[] palette = others.size() <= PALETTE.length
                ? Arrays.copyOf(PALETTE, Math.max(FIRST, others.size()))
                : palette(others.size());
        boolean[] taken = new boolean[palette.length];
        others.sort(null);
        for (String n : others) {
            int at = Integer.remainderUnsigned(fnv(n), palette.length);
            while (taken[at]) {
                at = (at + 1) % palette.length;
            }
            taken[at] = true;
            out[ids.get(n)] = palette[at];
        }
        colors = out;
        return out;
    }

    /**
     * At least {@code n} distinct colors: the hand-picked ones, then as many as needed around the
     * hue circle (golden-angle steps), at saturations and lightnesses that stay readable on white
     * and away from the states' greys.
     */
    static String[] palette(int n) {
        LinkedHashSet<String> out = new LinkedHashSet<>(Arrays.asList(PALETTE));
        double[] light = {0.45, 0.62, 0.36, 0.54, 0.70};
        double[] sat = {0.62, 0.50, 0.72, 0.42, 0.58};
        for (int k = 0; out.size() < n; k++) {
            double hue = (k * 137.50776405) % 360;
            out.add(hsl(hue, sat[(k / 3) % sat.length], light[k % light.length]));
        }
        return out.toArray(new String[0]);
    }

    private static String hsl(double h, double s, double l) {
        double c = (1 - Math.abs(2 * l - 1)) * s;
        double x = c * (1 - Math.abs((h / 60) % 2 - 1));
        double m = l - c / 2;
        double[] rgb = h < 60
                ? new double[] {c, x, 0}
                : h < 120
                        ? new double[] {x, c, 0}
                        : h < 180
                                ? new double[] {0, c, x}
                                : h < 240
                                        ? new double[] {0, x, c}
                                        : h < 300 ? new double[] {x, 0, c} : new double[] {c, 0, x};
        return String.format(
                Locale.ROOT,
                "#%02x%02x%02x",
                Math.round((rgb[0] + m) * 255),
                Math.round((rgb[1] + m) * 255),
                Math.round((rgb[2] + m) * 255));
    }

    /** FNV-1a of the name's UTF-8 bytes: the palette entry a name prefers. */
    private static int fnv(String name) {
        int h = 0x811c9dc5;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x01000193;
        }
        return h;
    }
}
