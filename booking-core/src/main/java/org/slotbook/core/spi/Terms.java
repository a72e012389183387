package org.slotbook.core.spi;

import java.time.Duration;
import org.slotbook.core.BookingRules;
import org.slotbook.core.internal.Checks;

/**
 * What a decision that may free a seat needs besides its arguments: the tenant's rules (the
 * cancellation policy, and the limits a promoted waiter must keep), the hold a promoted waiter gets
 * ({@code holdTtl}), and the bound of the overlap search ({@code longestSession}).
 */
public record Terms(BookingRules rules, Duration holdTtl, Duration longestSession) {
    /**
     * Checks the components: everything present.
     *
     * @param rules the booking rules
     * @param holdTtl how long a hold lasts
     * @param longestSession the longest session the store may hold, how far back the overlap check looks
     */
    public Terms {
        Checks.notNull("rules", rules);
        Checks.positive("holdTtl", holdTtl);
        Checks.positive("longestSession", longestSession);
    }

    /** {@return default rules, a 10-minute hold, sessions of at most a day} */
    public static Terms defaults() {
        return new Terms(BookingRules.defaults(), Duration.ofMinutes(10), Duration.ofDays(1));
    }
}
