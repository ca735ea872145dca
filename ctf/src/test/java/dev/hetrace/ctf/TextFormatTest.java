package dev.hetrace.ctf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.decode.BitReader;
import dev.hetrace.ctf.text.CFormat;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class TextFormatTest {
    @Test
    void percentGFormatsLikeGlibc() {
        assertThat(CFormat.g(1.0)).isEqualTo("1");
        assertThat(CFormat.g(0.1f)).isEqualTo("0.1");
        assertThat(CFormat.g(1e-5)).isEqualTo("1e-05");
        assertThat(CFormat.g(123456789.0)).isEqualTo("1.23457e+08");
        assertThat(CFormat.g(100000.0)).isEqualTo("100000");
        assertThat(CFormat.g(0.0001)).isEqualTo("0.0001");
        assertThat(CFormat.g(1e100)).isEqualTo("1e+100");
        assertThat(CFormat.g(-0.0)).isEqualTo("-0");
        assertThat(CFormat.g(Double.NEGATIVE_INFINITY)).isEqualTo("-inf");
        assertThat(CFormat.g(Float.MIN_VALUE)).isEqualTo("1.4013e-45");
        assertThat(CFormat.g(2.5e-310)).isEqualTo("2.5e-310");
    }

    @Test
    void bitFieldsFollowTheCtfLayoutInBothByteOrders() {
        // 0b1011_0110, 0b0000_0001: little-endian fields fill bytes from the low bits.
        MemorySegment seg = MemorySegment.ofArray(new byte[] {(byte) 0xB6, 0x01});
        assertThat(BitReader.read(seg, 0, 3, false)).isEqualTo(0b110);
        assertThat(BitReader.read(seg, 3, 6, false)).isEqualTo(0b110110);
        // Big-endian fields fill bytes from the high bits.
        assertThat(BitReader.read(seg, 0, 3, true)).isEqualTo(0b101);
        assertThat(BitReader.read(seg, 3, 6, true)).isEqualTo(0b101100);
        assertThat(BitReader.signExtend(0b101, 3)).isEqualTo(-3);
    }
}
