package org.slotbook.core.spi;

import java.util.List;

/** The gate's state of one slot: its capacity and its holders that are live by the gate's clock. */
public record GateView(int capacity, List<GateHolder> holders) {
    public GateView {
        holders = List.copyOf(holders);
    }

    public int remaining() {
        return Math.max(0, capacity - holders.size());
    }
}
