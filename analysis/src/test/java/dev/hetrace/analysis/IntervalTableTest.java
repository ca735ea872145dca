package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * {@link IntervalTable}: its packed fields read back as written, and {@link IntervalTable#concat}
 * (copied a run of rows at a time, each run within one chunk of either table) gives every part's
 * rows, renumbered, their times as they were, as copying them one by one does.
 */
class IntervalTableTest {

    @Example
    void packedFieldsReadBackAsWritten() {
        IntervalTable t = new IntervalTable();
        t.add(5, 9, 7, -1, StateModel.BLOCKED, 3, StateModel.START_UNKNOWN | StateModel.EVENTS_LOST, 2);
        t.add(-4, 20, -3, 11, -2, -1, 0xFF, -6);
        t.add(1, 1, Integer.MAX_VALUE, Integer.MIN_VALUE, (1 << 23) - 1, Integer.MIN_VALUE, 0, Long.MAX_VALUE);
        int[][] expected = {
            {7, -1, StateModel.BLOCKED, 3, StateModel.START_UNKNOWN | StateModel.EVENTS_LOST},
            {-3, 11, -2, -1, 0xFF},
            {Integer.MAX_VALUE, Integer.MIN_VALUE, (1 << 23) - 1, Integer.MIN_VALUE, 0}
        };
        IntervalTable.Block b = new IntervalTable.Block();
        assertThat(t.read(0, 10, b)).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            int[] e = expected[i];
            assertThat(new int[] {t.owner(i), t.subject(i), t.state(i), t.depth(i), t.flags(i)})
                    .containsExactly(e);
            assertThat(new int[] {b.owner(i), b.subject(i), b.state(i), b.depth(i), b.flags(i)})
                    .containsExactly(e);
            assertThat(b.start(i)).isEqualTo(t.start(i));
            assertThat(b.end(i)).isEqualTo(t.end(i));
            assertThat(b.self(i)).isEqualTo(t.self(i));
        }
        assertThat(t.self(1)).isEqualTo(-6);
        assertThat(t.self(2)).isEqualTo(Long.MAX_VALUE);
    }

    @Example
    void fieldsThatDoNotFitAreRefused() {
        IntervalTable t = new IntervalTable();
        assertThatThrownBy(() -> t.add(0, 1, 0, 0, 0, 0, 0x100, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.add(0, 1, 0, 0, 1 << 23, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(t.size()).isZero();
    }

    @Property(tries = 40)
    void concatenatedPartsAreTheirRowsRenumbered(
            @ForAll @Size(min = 1, max = 4) List<@IntRange(min = 0, max = 5000) Integer> sizes,
            @ForAll boolean renumber) {
        int parts = sizes.size();
        IntervalTable[] tables = new IntervalTable[parts];
        int[][] owners = renumber ? new int[parts][] : null;
        int[][] subjects = renumber ? new int[parts][] : null;
        List<long[]> expected = new ArrayList<>();
        for (int p = 0; p < parts; p++) {
            IntervalTable t = new IntervalTable();
            tables[p] = t;
            if (renumber) {
                owners[p] = new int[7];
                subjects[p] = new int[13];
                for (int k = 0; k < 7; k++) {
                    owners[p][k] = 100 * p + 6 - k;
                }
                for (int k = 0; k < 13; k++) {
                    subjects[p][k] = 1000 * p + 3 * k;
                }
            }
            for (int i = 0; i < sizes.get(p); i++) {
                long start = 10L * i + p;
                long end = start + (i % 9);
                long self = (i % 9) / 2;
                int owner = i % 7;
                int subject = i % 5 == 0 ? -1 : i % 13;
                int state = i % 5;
                int depth = i % 4;
                int flags = i % 8;
                t.add(start, end, owner, subject, state, depth, flags, self);
                expected.add(new long[] {
                    start,
                    end,
                    renumber ? owners[p][owner] : owner,
                    renumber && subject >= 0 ? subjects[p][subject] : subject,
                    state,
                    depth,
                    flags,
                    self
                });
            }
        }
        List<Runnable> copies = new ArrayList<>();
        IntervalTable all = IntervalTable.concat(tables, owners, subjects, copies);
        copies.forEach(Runnable::run);
        assertThat(all.size()).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            long[] e = expected.get(i);
            assertThat(new long[] {
                        all.start(i),
                        all.end(i),
                        all.owner(i),
                        all.subject(i),
                        all.state(i),
                        all.depth(i),
                        all.flags(i),
                        all.self(i)
                    })
                    .as("row %d", i)
                    .containsExactly(e);
        }
    }
}
