package org.slotbook.spring.bootapp;

import java.time.Duration;
import java.time.Instant;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.spring.web.SlotbookHttpStatus;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A service set up as the README says: the starter, Flyway and Actuator on the class path, migrations
 * of its own in db/migration, and no Slotbook wiring; only the engine injected into its controller.
 */
@SpringBootApplication
public class BookingApp {

    /** A session to schedule. */
    public record NewSlot(String slotId, Instant start, int capacity) {
    }

    /** A hold; {@code requestId} makes a retry safe. */
    public record NewHold(String requestId, String studentId) {
    }

    @RestController
    static class Api {
        private final BookingEngine engine;

        Api(BookingEngine engine) {
            this.engine = engine;
        }

        @PostMapping("/tenants/{tenant}/slots")
        ResponseEntity<ScheduleResult> schedule(@PathVariable("tenant") String tenant, @RequestBody NewSlot slot) {
            return SlotbookHttpStatus.response(engine.schedule(TenantId.of(tenant), new SlotSpec(
                    SlotId.of(slot.slotId()), CoachId.of("coach-" + slot.slotId()), RoomId.of("room-" + slot.slotId()),
                    TimeRange.of(slot.start(), Duration.ofHours(1)), slot.capacity())));
        }

        @PostMapping("/tenants/{tenant}/slots/{slot}/holds")
        ResponseEntity<HoldResult> hold(@PathVariable("tenant") String tenant, @PathVariable("slot") String slot,
                                        @RequestBody NewHold hold) {
            RequestId requestId = hold.requestId() == null ? RequestId.random() : RequestId.of(hold.requestId());
            return SlotbookHttpStatus.response(engine.hold(TenantId.of(tenant),
                    HoldRequest.of(requestId, SlotId.of(slot), StudentId.of(hold.studentId()))));
        }
    }
}
