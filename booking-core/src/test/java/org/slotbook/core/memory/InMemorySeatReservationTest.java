package org.slotbook.core.memory;

import java.time.Duration;
import java.time.Instant;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.core.tck.SeatReservationContract;

/** The gate contract in memory, on a test clock that the suite moves instead of sleeping. */
class InMemorySeatReservationTest extends SeatReservationContract {
    private final MutableClock clock = new MutableClock();
    private final InMemorySeatReservation gate = InMemorySeatReservation.create(clock);

    @Override
    protected SeatReservation reservation() {
        return gate;
    }

    @Override
    protected Instant gateNow() {
        return clock.instant();
    }

    @Override
    protected void elapse(Duration duration) {
        clock.advance(duration);
    }
}
