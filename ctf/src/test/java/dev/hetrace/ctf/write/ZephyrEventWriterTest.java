package dev.hetrace.ctf.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.write.ZephyrEventWriter.Layout;
import java.nio.BufferOverflowException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The bytes of Zephyr's events, field by field, as {@code ctf_top.h} gathers them for each metadata file. */
class ZephyrEventWriterTest {
    /** thread_switched_in of thread 0x20001000 "main": the fields of every layout. */
    private static final byte[] THREAD_MAIN = {
        0x00, 0x10, 0x00, 0x20, 'm', 'a', 'i', 'n', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    };

    @Test
    void uniprocessorEventsAreATruncated32BitTimestampAnIdByteAndThePackedFields() {
        ZephyrEventWriter w = new ZephyrEventWriter(Layout.UNIPROCESSOR);
        w.begin(0x1_2345_6789L, 0x11, 24).u32(0x20001000).name("main").end();

        assertThat(w.bytes()).startsWith(0x89, 0x67, 0x45, 0x23, 0x11).endsWith(THREAD_MAIN);
        assertThat(w.size()).isEqualTo(29).isEqualTo(Layout.UNIPROCESSOR.eventBytes(24));
    }

    @Test
    void smpEventsEndWithTheCoreIdOfTheCpuThatWroteThem() {
        ZephyrEventWriter w = new ZephyrEventWriter(Layout.SMP);
        w.onCore(1).begin(0x1_2345_6789L, 0x11, 24).u32(0x20001000).name("main").end();
        w.onCore(0).begin(0x1_2345_6790L, 0x1E, 0).end();

        byte[] b = w.bytes();
        assertThat(b).hasSize(33 + 9).startsWith(0x89, 0x67, 0x45, 0x23, 0x11);
        assertThat(Arrays.copyOfRange(b, 5, 33)).startsWith(THREAD_MAIN).endsWith(1, 0, 0, 0);
        assertThat(Arrays.copyOfRange(b, 33, 42)).containsExactly(0x90, 0x67, 0x45, 0x23, 0x1E, 0, 0, 0, 0);
        assertThat(w.events()).isEqualTo(2);
    }

    @Test
    void circularCaptureEventsHaveA64BitTimestampAndA16BitId() {
        ZephyrEventWriter w = new ZephyrEventWriter(Layout.CIRCULAR);
        w.begin(0x1_2345_6789L, 0x11, 24).u32(0x20001000).name("main").end();

        assertThat(w.bytes())
                .startsWith(0x89, 0x67, 0x45, 0x23, 0x01, 0, 0, 0, 0x11, 0)
                .endsWith(THREAD_MAIN)
                .hasSize(Layout.CIRCULAR.eventBytes(24));
    }

    @Test
    void namesKeepTheirFirst19BytesAndAlwaysEndWithANul() {
        ZephyrEventWriter w = new ZephyrEventWriter(Layout.UNIPROCESSOR);
        w.begin(0, 0x1A, 24).u32(7).name("a_thread_name_longer_than_twenty").end();

        byte[] name = Arrays.copyOfRange(w.bytes(), 9, 29);
        assertThat(new String(name, 0, 19, StandardCharsets.US_ASCII)).isEqualTo("a_thread_name_longe");
        assertThat(name[19]).isZero();
    }

    @Test
    void anEventWithFewerOrMoreFieldsThanDeclaredIsRefusedAndLeavesTheStreamAsItWas() {
        ZephyrEventWriter w = new ZephyrEventWriter(Layout.UNIPROCESSOR);
        w.begin(1, 0x1B, 0).end();

        assertThatThrownBy(() -> w.begin(2, 0x22, 4).end())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("event shorter than declared");
        assertThatThrownBy(() -> w.begin(3, 0x22, 4).u32(1).u32(2)).isInstanceOf(BufferOverflowException.class);
        assertThat(w.size()).isEqualTo(5);
        assertThat(w.events()).isEqualTo(1);
    }
}
