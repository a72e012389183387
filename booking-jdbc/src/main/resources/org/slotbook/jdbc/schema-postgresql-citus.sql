-- Slotbook on Citus (distributed PostgreSQL), run on the coordinator after schema-postgresql.sql and
-- routines-postgresql.sql, and again after every later run of them (a new routine is distributed then).
-- ${prefix} is the table prefix (default slotbook_); Flyway users define the placeholder "prefix".
-- Idempotent: what is distributed already is left as it is.
--
-- Every table is distributed by tenant_id, all of them colocated with ${prefix}slot (a colocation group
-- of their own), so that all rows of a tenant live in one shard group on one worker. Every routine with a
-- tenant argument (p_tenant) is distributed by it, colocated with the same tables: a call
-- SELECT * FROM ${prefix}hold('tenant', ...) is then sent by the coordinator to the worker that holds the
-- tenant and runs there as one local transaction. The other routines (the fact row, the batch helpers)
-- are distributed without an argument, so that every worker has them.

DO $$
DECLARE
    v_tables   VARCHAR[] := ARRAY['slot', 'slot_seat', 'booking', 'occupancy', 'waiter', 'resource_lock',
                                  'lesson_package', 'credit_entry', 'tenant_fence', 'event', 'event_head',
                                  'event_cursor'];
    v_routines VARCHAR[] := ARRAY['fact_of', 'lock_student', 'booking_row', 'waiter_row', 'slot_row', 'event_rows',
                                  'limit_reached', 'micros_ts', 'payer', 'lock_payer', 'charge', 'refund', 'forfeit',
                                  'package_row', 'release', 'promote', 'freed', 'retire', 'answered', 'replay',
                                  'claim_batch', 'schedule', 'hold', 'confirm', 'cancel', 'cancel_slot', 'expire_due',
                                  'leave_waitlist', 'grant_package', 'check_in', 'schedule_series', 'cancel_series',
                                  'hold_all', 'hold_batch', 'refund_dead_holds',
                                  'fence_check'];
    v_name     VARCHAR;
    r          RECORD;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION USING ERRCODE = '0A000',
            MESSAGE = 'the citus extension is not installed in this database: run this on a Citus coordinator';
    END IF;
    -- one connection per worker for the whole transaction: Citus runs a routine's distribution over
    -- the connections that created the tables' shards (and so inside one migration's transaction too)
    PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', TRUE);
    FOREACH v_name IN ARRAY v_tables LOOP
        IF to_regclass('${prefix}' || v_name) IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = '42P01',
                MESSAGE = format('table %s does not exist: create the schema first', '${prefix}' || v_name);
        END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = to_regclass('${prefix}' || v_name)) THEN
            PERFORM create_distributed_table('${prefix}' || v_name, 'tenant_id',
                    colocate_with => CASE WHEN v_name = 'slot' THEN 'none' ELSE '${prefix}slot' END);
        END IF;
    END LOOP;
    FOR r IN SELECT p.oid::regprocedure AS signature,
                    array_position(p.proargnames, 'p_tenant') AS tenant_arg,
                    d.distribution_argument_index AS distributed_by,
                    d.objid IS NOT NULL AS distributed
             FROM pg_proc p
             LEFT JOIN pg_dist_object d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
             WHERE p.pronamespace = current_schema()::regnamespace
               AND p.proname IN (SELECT '${prefix}' || unnest(v_routines))
             ORDER BY p.oid
    LOOP
        IF r.tenant_arg IS NOT NULL THEN
            -- the argument index Citus stores counts from 0
            IF r.distributed_by IS DISTINCT FROM r.tenant_arg - 1 THEN
                PERFORM create_distributed_function(r.signature, 'p_tenant', colocate_with => '${prefix}slot');
            END IF;
        ELSIF NOT r.distributed THEN
            PERFORM create_distributed_function(r.signature);
        END IF;
    END LOOP;
END
$$;
