package org.slotbook.core;

import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;

/**
 * The hot path of {@link BookingEngine#hold} and {@link BookingEngine#book}: the gate, one store
 * call, and the gate hold given back whenever the store did not grant this request a live booking.
 */
final class HoldFlow {
    private static final Logger LOG = LoggerFactory.getLogger(BookingEngine.class);

    private final BookingStore store;
    private final GateGuard guard;
    private final Reconciler reconciler;
    private final EngineClock clock;
    private final HoldPolicy policy;
    private final Duration longestSession;
    private final Events events;

    HoldFlow(BookingStore store, GateGuard guard, Reconciler reconciler, EngineClock clock, HoldPolicy policy,
             Duration longestSession, Events events) {
        this.store = store;
        this.guard = guard;
        this.reconciler = reconciler;
        this.clock = clock;
        this.policy = policy;
        this.longestSession = longestSession;
        this.events = events;
    }

    HoldResult acquire(TenantId tenantId, HoldRequest request, BookingStatus status) {
        Instant gateNow = clock.now();
        boolean gateHeld = false;
        boolean duplicate = false;
        for (int attempt = 0; attempt < 2 && guard.present(); attempt++) {
            long askedAt = System.nanoTime();
            GateDecision decision = guard.tryHold(tenantId, request, gateNow, gateNow.plus(policy.gateTtl()));
            switch (decision.outcome()) {
                case FULL -> {
                    guard.full.increment();
                    return new Full(request.slotId());
                }
                case HELD -> gateHeld = true;
                case DUPLICATE -> duplicate = true;
                case MISSING -> {
                    if (attempt == 0) {
                        reconciler.rebuild(tenantId, request.slotId(), askedAt);
                        continue;
                    }
                }
                default -> {
                    // UNAVAILABLE: the database alone decides
                }
            }
            break;
        }
        HoldCommand command = new HoldCommand(BookingId.random(), request, status, clock.storeNow(),
                policy.holdTtl(), longestSession, gateHeld || duplicate);
        StoreOutcome<HoldResult> outcome;
        try {
            outcome = decide(tenantId, command);
        } catch (RuntimeException e) {
            if (gateHeld) {
                Held committed = committedDespite(tenantId, request, e);
                if (committed != null) {
                    return committed; // the commit went through, only its acknowledgement was lost
                }
                release(tenantId, request);
            }
            throw e;
        }
        HoldResult result = outcome.result();
        if (result instanceof Held held && held.replayed()) {
            try {
                samePayloadOrThrow(held.booking(), request);
            } catch (IllegalArgumentException e) {
                if (gateHeld) {
                    release(tenantId, request);
                }
                throw e;
            }
        }
        if (gateHeld || duplicate) {
            settleGate(tenantId, request, result, gateHeld, duplicate);
        }
        events.publish(outcome.events());
        return result;
    }

    private StoreOutcome<HoldResult> decide(TenantId tenantId, HoldCommand command) {
        try {
            return store.hold(tenantId, command);
        } catch (DuplicateBookingException e) {
            // A unique key stopped a concurrent duplicate of this request id: answer from what is stored.
            var stored = store.findByRequest(tenantId, command.request().requestId());
            if (stored.isPresent()) {
                return StoreOutcome.of(new Held(stored.get(), true));
            }
            return store.hold(tenantId, command);
        }
    }

    /**
     * Makes the gate agree with the store's answer. A gate hold this request took stays only behind
     * a live booking of this student; a DUPLICATE that turned out to be an orphan (the store granted
     * a new booking) is replaced by a hold of this request.
     */
    private void settleGate(TenantId tenantId, HoldRequest request, HoldResult result, boolean gateHeld,
                            boolean duplicate) {
        Booking backing = null;
        if (result instanceof Held held) {
            backing = held.booking();
        } else if (result instanceof AlreadyBooked already) {
            backing = already.existing();
        }
        boolean live = backing != null && backing.studentId().equals(request.studentId())
                && backing.isLive(clock.now());
        if (gateHeld) {
            if (!live) {
                if (result instanceof Full) {
                    guard.heldLedgerRefused.increment();
                }
                release(tenantId, request);
            } else if (backing.status() == BookingStatus.CONFIRMED) {
                guard.call("confirm", () -> guard.gate().confirm(tenantId, request.slotId(), request.studentId()));
            }
            return;
        }
        if (duplicate && result instanceof Held held && !held.replayed()) {
            // The gate's hold for this student backed nothing: it stands for the new booking now.
            guard.orphansReleased.increment();
            if (backing.status() == BookingStatus.CONFIRMED) {
                guard.call("confirm", () -> guard.gate().confirm(tenantId, request.slotId(), request.studentId()));
            }
        }
    }

    private void release(TenantId tenantId, HoldRequest request) {
        guard.call("release", () -> guard.gate().release(tenantId, request.slotId(), request.studentId()));
    }

    /**
     * After a store failure whose outcome is unknown (a connection lost around the commit): the
     * request's booking if it was committed after all, else null. A store that cannot answer counts
     * as "not committed", so an outage never leaves gate holds behind.
     */
    private Held committedDespite(TenantId tenantId, HoldRequest request, RuntimeException failure) {
        if (failure instanceof IllegalArgumentException) {
            return null;
        }
        try {
            Booking stored = store.findByRequest(tenantId, request.requestId()).orElse(null);
            if (stored != null && stored.slotId().equals(request.slotId())
                    && stored.studentId().equals(request.studentId())) {
                LOG.info("Hold {} was committed although the store reported {}; answering it", request.requestId(),
                        failure.toString());
                return new Held(stored, true);
            }
        } catch (RuntimeException checkFailed) {
            failure.addSuppressed(checkFailed);
        }
        return null;
    }

    static Booking samePayloadOrThrow(Booking stored, HoldRequest request) {
        if (!stored.slotId().equals(request.slotId()) || !stored.studentId().equals(request.studentId())) {
            throw new IllegalArgumentException("requestId '" + request.requestId() + "' was already used for slot '"
                    + stored.slotId() + "' and student '" + stored.studentId() + "'; refusing it for slot '"
                    + request.slotId() + "' and student '" + request.studentId() + "'");
        }
        return stored;
    }
}
