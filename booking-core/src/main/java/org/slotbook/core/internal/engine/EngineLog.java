package org.slotbook.core.internal.engine;

/**
 * The log category of the engine's machinery: the name of {@code org.slotbook.core.BookingEngine}, under
 * which hosts find and configure the engine's warnings. Named here as text, so that the machinery does not
 * depend on the engine that uses it.
 */
final class EngineLog {
    /** The category every logger of this package logs under. */
    static final String CATEGORY = "org.slotbook.core.BookingEngine";

    private EngineLog() {
    }
}
