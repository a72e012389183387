package org.slotbook.spring;

import org.slotbook.core.BookingEngine;

/**
 * Changes the starter's engine builder after the properties and the other beans are applied, so one
 * setting can change without replacing the whole {@code BookingEngine} bean. Every such bean is
 * applied, in {@code @Order}.
 */
@FunctionalInterface
public interface SlotbookEngineCustomizer {
    /**
     * Changes the engine's settings before the engine is built.
     *
     * @param builder the starter's engine builder, with the properties and beans already applied
     */
    void customize(BookingEngine.Builder builder);
}
