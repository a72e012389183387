package org.slotbook.core.spi;

import java.util.List;

/** The gate's state of one slot: its capacity and its holders that are live by the gate's clock. */
public record GateView(int capacity, List<GateHolder> holders) {
    /**
     * Checks the components: a capacity of at least 1, the holders present.
     *
     * @param capacity the number of seats of the slot
     * @param holders the live holders
     */
    public GateView {
        holders = List.copyOf(holders);
    }

    /** {@return the seats no live holder takes} */
    public int remaining() {
        return Math.max(0, capacity - holders.size());
    }
}
