package org.slotbook.core.tck.faults;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.MutableClock;

/**
 * The bed every fault scenario runs on: the store under test, opened once per class; the
 * {@linkplain #servers() servers} the scenarios break, brought back before and after every test; and
 * per test a fresh tenant, gate, {@link MutableClock} and {@link BookingEngine}. Invariants are read
 * back from storage by {@link #invariants()}, whatever the engine answered.
 *
 * <p>A backend module extends it with what its faults need (a server process it owns, a gate on it),
 * and scenarios extend that; a class that runs them names the store ({@link #openStore()}) and, when
 * the store has tables of its own, reads them in an {@link Invariants} subclass.
 *
 * @param <G> the gate the scenarios break
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class FaultSuite<G extends SeatReservation> {
    /** The engine's policy in every scenario unless a scenario says otherwise. */
    protected static final HoldPolicy POLICY = HoldPolicy.ofDefaults();

    protected BookingStore store;
    protected MutableClock clock;
    protected G gate;
    protected BookingEngine engine;
    protected TenantId tenant;

    /** Opens the store under test, once for the class. */
    protected abstract BookingStore openStore();

    /** Closes what {@link #openStore()} opened. */
    protected void closeStore() {
    }

    /** A gate no earlier test has written to. */
    protected abstract G newGate();

    /** The processes this suite owns and breaks; each is started again when a test left it dead. */
    protected List<? extends ServerProcess> servers() {
        return List.of();
    }

    /** The invariants of the current tenant, read from the store and the gate. */
    protected Invariants invariants() {
        return new Invariants(store, gate, tenant);
    }

    @BeforeAll
    void openTheStore() {
        store = openStore();
    }

    @AfterAll
    void closeTheStore() {
        closeStore();
    }

    @BeforeEach
    void freshTenant() {
        serversBack();
        clock = new MutableClock();
        gate = newGate();
        engine = engine(store, gate, POLICY);
        tenant = TenantId.of("t-" + UUID.randomUUID());
    }

    @AfterEach
    void serversBack() {
        for (ServerProcess server : servers()) {
            if (!server.isAlive()) {
                server.start();
            }
        }
    }

    /** An engine on the suite's clock over {@code store} (the suite's store, or a fault-injecting wrapper of it). */
    protected BookingEngine engine(BookingStore store, SeatReservation reservation, HoldPolicy policy) {
        return BookingEngine.builder().store(store).reservation(reservation)
                .holdPolicy(policy).clock(clock).build();
    }

    /** A one-hour session tomorrow with its own coach and room. */
    protected SlotId schedule(String name, int capacity) {
        Instant start = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
        return schedule(name, new TimeRange(start, start.plus(Duration.ofHours(1))), capacity);
    }

    protected SlotId schedule(String name, TimeRange time, int capacity) {
        SlotId slot = SlotId.of(name);
        ScheduleResult result = engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach-" + name),
                RoomId.of("room-" + name), time, capacity));
        if (!(result instanceof Scheduled)) {
            throw new AssertionError("could not schedule " + name + ": " + result);
        }
        return slot;
    }

    protected List<Booking> liveBookings(SlotId slot) {
        return invariants().liveBookings(slot, clock.instant());
    }

    /** Prints the scenario's one-line summary and fails when any violation was found. */
    protected static void report(int scenario, String name, long operations, long faults, Violations violations) {
        System.out.printf("scenario %d %s: operations=%d faults=%d violations=%d%n", scenario, name, operations,
                faults, violations.count());
        violations.assertNone(scenario + " " + name);
    }

    /** Prints a sale's one-line summary and fails when any violation was found. */
    protected static void report(String name, Violations violations) {
        System.out.printf("%s: violations=%d%n", name, violations.count());
        violations.assertNone(name);
    }

    public static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
