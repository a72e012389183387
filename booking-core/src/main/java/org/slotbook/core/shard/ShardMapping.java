package org.slotbook.core.shard;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.TenantId;
import org.slotbook.core.internal.Checks;

/**
 * Names the shard that holds a tenant: the host's mapping for a {@link TenantRoutedStore}. It is
 * asked on every call, so a mapping that reads a table the host changes at run time (a tenant moved
 * to another shard) takes effect on the next call.
 *
 * <p>It must answer the same shard for a tenant on every application node, and must not change a
 * tenant's shard while that tenant has traffic: moving a tenant is a procedure (stop its traffic,
 * copy its rows, switch the mapping, reconcile the gate), described in {@code docs/scaling.md}.
 */
@FunctionalInterface
public interface ShardMapping {

    /**
     * {@return the name of the shard that holds {@code tenant}; one of the names the routed store was built
     * with}
     *
     * @param tenant the tenant to place
     */
    String shardOf(TenantId tenant);

    /**
     * Rendezvous (highest random weight) hashing over {@code shards}: each tenant goes to the shard
     * whose weight for it is highest, the weight being a 64-bit hash of the shard's name and the
     * tenant id. Every node computes the same answer from the names alone, with no table to share;
     * adding a shard moves only the tenants that now weigh highest on the new one (about 1/N of
     * them), and removing one moves only that shard's tenants.
     *
     * <p>The hash is fixed and part of the contract: FNV-1a 64 over the UTF-8 bytes of
     * {@code name + '\n' + tenantId}, passed through the SplitMix64 finaliser; ties go to the name
     * that sorts first. It never changes between versions, so a tenant stays where it was.
     *
     * @param shards the names of the shards
     * @return the mapping
     */
    static ShardMapping rendezvous(Collection<String> shards) {
        Checks.notNull("shards", shards);
        List<String> names = new ArrayList<>(shards.size());
        for (String name : shards) {
            names.add(Checks.id("shard", name));
        }
        if (names.isEmpty()) {
            throw new InvalidInputException("shards must name at least one shard, got none");
        }
        names.sort(null);
        List<String> fixed = List.copyOf(names);
        return tenant -> {
            String best = null;
            long bestWeight = 0;
            for (String name : fixed) {
                long weight = weight(name, tenant);
                if (best == null || Long.compareUnsigned(weight, bestWeight) > 0) {
                    best = name;
                    bestWeight = weight;
                }
            }
            return best;
        };
    }

    /**
     * The shard a table names for the tenant, else what {@code otherwise} says. The table is read on
     * every call, so a {@link java.util.concurrent.ConcurrentHashMap} the host updates switches a
     * tenant at once (the last step of moving it).
     *
     * @param table tenant to shard name
     * @param otherwise the mapping for a tenant the table does not name
     * @return the mapping
     */
    static ShardMapping table(Map<TenantId, String> table, ShardMapping otherwise) {
        Checks.notNull("table", table);
        Checks.notNull("otherwise", otherwise);
        return tenant -> {
            String shard = table.get(tenant);
            return shard != null ? shard : otherwise.shardOf(tenant);
        };
    }

    /**
     * {@return the rendezvous weight of {@code shard} for {@code tenant} (see {@link #rendezvous})}
     *
     * @param shard the shard, by its name
     * @param tenant the tenant to weigh the shard for
     */
    static long weight(String shard, TenantId tenant) {
        byte[] bytes = (shard + "\n" + tenant.value()).getBytes(StandardCharsets.UTF_8);
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h += 0x9e3779b97f4a7c15L;
        h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
        h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
        return h ^ (h >>> 31);
    }
}
