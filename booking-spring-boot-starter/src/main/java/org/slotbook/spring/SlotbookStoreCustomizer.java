package org.slotbook.spring;

import org.slotbook.jdbc.JdbcStore;

/**
 * Changes the starter's {@link JdbcStore} builder after the {@code slotbook.jdbc.*} properties are
 * applied, so one setting can change without replacing the whole store bean. Every such bean is
 * applied, in {@code @Order}.
 */
@FunctionalInterface
public interface SlotbookStoreCustomizer {
    /**
     * Changes the store's settings before the store is built.
     *
     * @param builder the starter's store builder, with the {@code slotbook.jdbc.*} properties applied
     */
    void customize(JdbcStore.Builder builder);
}
