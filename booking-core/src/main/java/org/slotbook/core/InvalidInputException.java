package org.slotbook.core;

import org.jspecify.annotations.Nullable;

/**
 * An argument the library refuses: a null or malformed id, an empty range, a setting out of bounds.
 * The message names the field and the refused value (with unusual characters escaped), and nothing
 * of another tenant or student. Nothing was changed, in the database or in the gate.
 *
 * <p>A subtype of {@link IllegalArgumentException}, so code that catches that keeps working; a web
 * layer maps this type, and only this type, to a client error (400) without turning its own bugs
 * into client errors too. A request id used again for another request is the sibling
 * {@link RequestIdReusedException}; a store that is down is a {@link BookingStoreException}.
 */
public class InvalidInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The name of the refused argument, or null when the thrower did not give it. */
    private final @Nullable String field;

    /**
     * An exception whose message alone names the field and the refused value.
     *
     * @param message names the field and the refused value
     */
    public InvalidInputException(String message) {
        this(null, message, null);
    }

    /**
     * An exception for a named argument.
     *
     * @param field the name of the refused argument ({@code "slotId"}, {@code "time"}), or null
     * @param message names the field and the refused value
     */
    public InvalidInputException(@Nullable String field, String message) {
        this(field, message, null);
    }

    /**
     * An exception for a named argument whose refusal came from another exception (a parse failure).
     *
     * @param field the name of the refused argument ({@code "slotId"}, {@code "time"}), or null
     * @param message names the field and the refused value
     * @param cause the exception that showed the value to be bad, or null
     */
    public InvalidInputException(@Nullable String field, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.field = field;
    }

    /**
     * The name of the refused argument, when the thrower gave it; the message names it either way.
     *
     * @return the argument's name, or null when the thrower did not give it
     */
    public @Nullable String field() {
        return field;
    }
}
