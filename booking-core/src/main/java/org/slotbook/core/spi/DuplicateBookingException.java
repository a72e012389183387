package org.slotbook.core.spi;

/**
 * Thrown by a ledger when a unique key refused a write: the request id is already used, or the
 * student already has a seat in the slot. The transaction is rolled back; the engine answers from
 * the stored booking (a replay or {@code AlreadyBooked}). Backends map their unique-violation
 * error (SQLState class 23) to it.
 */
public class DuplicateBookingException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A unique key refused the write.
     *
     * @param message what was refused
     * @param cause the database's failure
     */
    public DuplicateBookingException(String message, Throwable cause) {
        super(message, cause);
    }
}
