package org.slotbook.spring.app;

import org.slotbook.core.BookingEngine;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** A host application as a user writes it: no Slotbook wiring, only the engine injected. */
@SpringBootApplication
public class HostApp {

    @RestController
    static class Holds {
        private final BookingEngine engine;

        Holds(BookingEngine engine) {
            this.engine = engine;
        }

        @PostMapping("/tenants/{tenant}/slots/{slot}/holds/{student}")
        HoldResult hold(@PathVariable("tenant") String tenant, @PathVariable("slot") String slot, @PathVariable("student") String student) {
            return engine.hold(TenantId.of(tenant), HoldRequest.of(RequestId.random(), SlotId.of(slot),
                    StudentId.of(student)));
        }
    }

    /** Writes a row of the host's own and books in the same method. */
    @Service
    public static class Checkout {
        private final BookingEngine engine;
        private final JdbcTemplate jdbc;

        Checkout(BookingEngine engine, JdbcTemplate jdbc) {
            this.engine = engine;
            this.jdbc = jdbc;
        }

        /** Wrong: the engine inside the host's transaction. Refused; the host then rolls back. */
        @Transactional
        public HoldResult orderInsideTransaction(String orderId, TenantId tenant, HoldRequest request) {
            jdbc.update("INSERT INTO host_order (id) VALUES (?)", orderId);
            return engine.hold(tenant, request);
        }

        /** Right: the booking outside any transaction, then the host's own write. */
        // --- outside the transaction (README) ---
        @Transactional(propagation = Propagation.NOT_SUPPORTED)
        public HoldResult orderOutsideTransaction(String orderId, TenantId tenant, HoldRequest request) {
            HoldResult result = engine.hold(tenant, request);                       // commits on its own
            jdbc.update("INSERT INTO host_order (id) VALUES (?)", orderId);       // the host's own write
            return result;
        }
        // --- end ---
    }
}
