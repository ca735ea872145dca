package dev.hetrace.cli;

import static dev.hetrace.ctf.testing.TraceWriter.event;

import dev.hetrace.ctf.testing.TraceWriter;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A trace whose tracer lost events and packets in every way babeltrace2 reports, in three
 * streams (times are ns after 22:13:20 UTC):
 * <ul>
 *   <li>chan_0: events_discarded 0, 5, 5: five events lost between 200 and 400;</li>
 *   <li>chan_1: the first packet already counts 3 (lost before it: how many is unknown), then
 *       packet_seq_num jumps 4 to 7 (two packets lost between 250 and 350), then 6 more
 *       events lost between 450 and 470;</li>
 *   <li>chan_2: one event and one packet lost, then a last packet without events that still
 *       counts three more lost events.</li>
 * </ul>
 */
final class LossyTrace {
    private LossyTrace() {}

    static Path write(Path dir) throws IOException {
        return new TraceWriter(dir)
                .stream("chan_0", 0)
                        .packet(100, 200, 0, 0, event(110, 1, "a"), event(150, 2, "b"))
                        .packet(300, 400, 1, 5, event(310, 3, "c"), event(390, 4, "d"))
                        .packet(500, 600, 2, 5, event(510, 5, "e"))
                        .done()
                        .stream("chan_1", 1)
                        .packet(120, 250, 4, 3, event(130, 10, "x"), event(240, 11, "y"))
                        .packet(350, 450, 7, 3, event(360, 12, "z"))
                        .packet(460, 470, 8, 9, event(465, 13, "w"))
                        .done()
                        .stream("chan_2", 2)
                        .packet(50, 60, 0, 0, event(55, 20, "p"))
                        .packet(700, 800, 2, 1, event(750, 21, "q"))
                        .packet(900, 950, 3, 4)
                        .done()
                        .write();
    }

    public static void main(String[] args) throws IOException {
        write(Path.of(args[0]));
    }
}
