package org.slotbook.core.spi;

import java.util.List;

/** The gate's state of one slot: its capacity and its live holders. */
public record GateView(int capacity, List<GateHolder> holders) {
    public GateView {
        holders = List.copyOf(holders);
    }

    public int remaining() {
        return Math.max(0, capacity - holders.size());
    }
}
