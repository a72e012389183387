package org.slotbook.core;

/**
 * The ledger (database) could not be reached or failed in a way a retry inside the library could
 * not absorb. Nothing was changed by the call that threw it: its transaction was rolled back.
 */
public class BookingStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BookingStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public BookingStoreException(String message) {
        super(message);
    }
}
