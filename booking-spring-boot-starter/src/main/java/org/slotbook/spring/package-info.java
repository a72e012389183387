/**
 * Spring Boot auto-configuration for Slotbook: the store on the application's DataSource, the Redis
 * gate, the engine and its upkeep, migrations, Micrometer meters, health and the Jackson module,
 * configured under {@code slotbook.*} ({@link org.slotbook.spring.SlotbookProperties}).
 */
@NullMarked
package org.slotbook.spring;

import org.jspecify.annotations.NullMarked;
