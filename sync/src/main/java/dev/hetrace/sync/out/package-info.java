/**
 * Synchronized copies of traces ({@code hetrace sync ... --out DIR}): a trace rewritten so that
 * any CTF reader shows it on the reference clock. {@link dev.hetrace.sync.out.SynchronizedCopy}
 * is the entry point; a linear transform goes into the metadata's clock blocks
 * ({@link dev.hetrace.sync.out.ClockFit}), anything else into the packets' clock fields.
 */
package dev.hetrace.sync.out;
