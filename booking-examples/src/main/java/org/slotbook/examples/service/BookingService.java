package org.slotbook.examples.service;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slotbook.core.AvailabilityResult;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CoachId;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.springframework.boot.SpringApplication;
import org.slotbook.spring.web.SlotbookHttpStatus;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small booking API on Slotbook's Spring Boot starter. It holds no Slotbook wiring: the starter
 * provides the engine on the application's DataSource (and the Redis gate when
 * {@code slotbook.redis.url} is set), runs the migrations, the upkeep, the metrics and the health
 * check, and answers bad input (400), a reused request id (409) and a store that is away (503) as
 * problem details. Each result goes out with its status from {@link SlotbookHttpStatus}
 * ({@code Held} 201, {@code Full} 409, {@code NotFound} 404, ...). Settings are in {@code application.properties}; run it with
 * {@code mvn -q -pl booking-examples -am package -DskipTests exec:java -Dexec.mainClass=org.slotbook.examples.service.BookingService}.
 */
@SpringBootApplication
public class BookingService {

    public static void main(String[] args) {
        SpringApplication.run(BookingService.class, args);
    }

    /** What a client sends to schedule a session; {@code cost}: lessons drawn from the student's package (0: none). */
    public record NewSlot(String slotId, String coachId, String roomId, Instant start, int minutes, int capacity,
                          int cost) {
    }

    /** What a client sends to grant a student a package of lessons. */
    public record NewPackage(String packageId, String studentId, int credits, Instant validFrom, Instant validUntil) {
    }

    /** What a client sends to hold or book a seat; {@code requestId} makes a retry safe. */
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
                    SlotId.of(slot.slotId()),
                    CoachId.of(slot.coachId()), RoomId.of(slot.roomId()),
                    TimeRange.of(slot.start(), Duration.ofMinutes(slot.minutes())), slot.capacity())
                    .withCost(slot.cost())));
        }

        @PostMapping("/tenants/{tenant}/packages")
        LessonPackage grant(@PathVariable("tenant") String tenant, @RequestBody NewPackage p) {
            return engine.grantPackage(TenantId.of(tenant), PackageGrant.of(PackageId.of(p.packageId()),
                    StudentId.of(p.studentId()), p.credits(), p.validFrom(), p.validUntil()));
        }

        @GetMapping("/tenants/{tenant}/students/{student}/packages")
        List<LessonPackage> packages(@PathVariable("tenant") String tenant, @PathVariable("student") String student) {
            return engine.packages(TenantId.of(tenant), StudentId.of(student), 0, 100);
        }

        @PostMapping("/tenants/{tenant}/bookings/{booking}/check-in")
        ResponseEntity<CheckInResult> checkIn(@PathVariable("tenant") String tenant, @PathVariable("booking") String booking,
                              @RequestParam("student") String student) {
            return SlotbookHttpStatus.response(engine.checkIn(TenantId.of(tenant), BookingId.of(booking),
                    StudentId.of(student)));
        }

        @GetMapping("/tenants/{tenant}/slots/{slot}")
        ResponseEntity<AvailabilityResult> availability(@PathVariable("tenant") String tenant, @PathVariable("slot") String slot) {
            return SlotbookHttpStatus.response(engine.availability(TenantId.of(tenant), SlotId.of(slot)));
        }

        @PostMapping("/tenants/{tenant}/slots/{slot}/holds")
        ResponseEntity<HoldResult> hold(@PathVariable("tenant") String tenant, @PathVariable("slot") String slot,
                        @RequestBody NewHold hold) {
            return SlotbookHttpStatus.response(engine.hold(TenantId.of(tenant), request(slot, hold)));
        }

        @PostMapping("/tenants/{tenant}/slots/{slot}/bookings")
        ResponseEntity<HoldResult> book(@PathVariable("tenant") String tenant, @PathVariable("slot") String slot,
                        @RequestBody NewHold hold) {
            return SlotbookHttpStatus.response(engine.book(TenantId.of(tenant), request(slot, hold)));
        }

        @PostMapping("/tenants/{tenant}/bookings/{booking}/confirm")
        ResponseEntity<ConfirmResult> confirm(@PathVariable("tenant") String tenant, @PathVariable("booking") String booking,
                              @RequestParam("student") String student) {
            return SlotbookHttpStatus.response(engine.confirm(TenantId.of(tenant), BookingId.of(booking),
                    StudentId.of(student)));
        }

        @DeleteMapping("/tenants/{tenant}/bookings/{booking}")
        ResponseEntity<CancelResult> cancel(@PathVariable("tenant") String tenant, @PathVariable("booking") String booking,
                            @RequestParam("student") String student) {
            return SlotbookHttpStatus.response(engine.cancel(TenantId.of(tenant), BookingId.of(booking),
                    StudentId.of(student)));
        }

        private static HoldRequest request(String slot, NewHold hold) {
            RequestId requestId = hold.requestId() == null ? RequestId.random() : RequestId.of(hold.requestId());
            return HoldRequest.of(requestId, SlotId.of(slot), StudentId.of(hold.studentId()));
        }
    }
}
