/**
 * Sharding by tenant: a {@link org.slotbook.core.shard.TenantRoutedStore} sends every call to the
 * store (its own database server) that holds the call's tenant, as a
 * {@link org.slotbook.core.shard.ShardMapping} says; {@link org.slotbook.core.shard.ShardedUpkeep}
 * runs the sweep and the gate reconciliation shard by shard.
 *
 * <p>Every key begins with the tenant and no operation spans tenants, so each tenant lives whole on
 * one shard and every guarantee (no oversell, no double-booking, seats balance) holds there as it does
 * on a single database. Nothing is replicated or agreed between shards.
 */
@NullMarked
package org.slotbook.core.shard;

import org.jspecify.annotations.NullMarked;
