package org.slotbook.spring;

import org.slotbook.core.BookingEngine;

/**
 * Changes the starter's engine builder after the properties and the other beans are applied, so one
 * setting can change without replacing the whole {@code BookingEngine} bean. Every such bean is
 * applied, in {@code @Order}.
 */
@FunctionalInterface
public interface SlotbookEngineCustomizer {
    void customize(BookingEngine.Builder builder);
}
