package org.slotbook.core.internal.engine;

import java.time.Clock;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;

/**
 * The engine's time. Deadlines in the store are judged by the store's own clock (the database's)
 * unless the engine was given an explicit {@link Clock}, which then decides everywhere (tests, and
 * the in-memory backend).
 */
public final class EngineClock {
    private final Clock clock;
    private final boolean explicit;

    public EngineClock(Clock clock, boolean explicit) {
        this.clock = clock;
        this.explicit = explicit;
    }

    public Clock clock() {
        return clock;
    }

    /** The engine's own instant, for what the engine itself judges. */
    public Instant now() {
        return Checks.micros("clock.instant()", clock.instant());
    }

    /** Whether an explicit clock decides every deadline (then the gate's clock decides nothing). */
    public boolean explicit() {
        return explicit;
    }

    /** What the store is told: the explicit clock's instant, or null for the store's own clock. */
    public @Nullable Instant storeNow() {
        return explicit ? now() : null;
    }
}
