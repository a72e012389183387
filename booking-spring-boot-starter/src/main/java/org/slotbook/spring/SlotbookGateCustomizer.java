package org.slotbook.spring;

import org.slotbook.redis.RedisSeatReservation;

/**
 * Changes the starter's Redis gate builder after the {@code slotbook.redis.*} properties are applied,
 * so one setting can change without replacing the whole gate bean. Every such bean is applied, in
 * {@code @Order}.
 */
@FunctionalInterface
public interface SlotbookGateCustomizer {
    /**
     * Changes the gate's settings before the gate is built.
     *
     * @param builder the starter's Redis gate builder, with the {@code slotbook.redis.*} properties applied
     */
    void customize(RedisSeatReservation.Builder builder);
}
