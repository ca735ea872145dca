package dev.hetrace.sim;

import java.util.ArrayDeque;

/**
 * A MessageQ-like queue owned by one core: senders anywhere put messages into it, one task of
 * its core takes them. {@code id} is unique on the board and is what the tracers record.
 */
final class MessageQueue {
    /** A message in flight or waiting: {@code id} is unique on the board; {@code tag} is for the receiving program. */
    record Message(int id, int size, int tag, int fromCore) {}

    final int id;
    final String name;
    final Core owner;
    final ArrayDeque<Message> waiting = new ArrayDeque<>();
    /** The task blocked on this queue, if any. */
    Task reader;

    MessageQueue(int id, String name, Core owner) {
        this.id = id;
        this.name = name;
        this.owner = owner;
    }
}
