package org.slotbook.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingListener;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;

/**
 * The node that dies: cancels a booking (its transaction commits, and promotes a waiter) and halts the JVM
 * as its listener is about to hear the first event, so nothing of the decision is delivered or recorded
 * delivered. Arguments: JDBC URL, table prefix, tenant, booking id, student. Run by {@link OutboxCrashTest}.
 */
public final class OutboxCrashChild {
    private OutboxCrashChild() {
    }

    public static void main(String[] args) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(args[0]);
        dataSource.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        BookingEngine engine = BookingEngine.builder()
                .store(JdbcStore.builder(dataSource).tablePrefix(args[1]).build())
                .listener(new BookingListener() {
                    @Override
                    public void cancelled(Booking booking) {
                        Runtime.getRuntime().halt(3);
                    }
                })
                .build();
        engine.cancel(TenantId.of(args[2]), BookingId.of(args[3]), StudentId.of(args[4]));
        System.exit(1); // not reached: the listener halts the JVM
    }
}
