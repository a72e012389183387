-- Optional backstop for PostgreSQL: the database itself refuses two overlapping active occupations
-- of one resource. Needs the btree_gist extension (CREATE privilege on the database, or an
-- administrator who created it). Without it the lock-then-check path alone keeps the guarantee.

CREATE EXTENSION IF NOT EXISTS btree_gist;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint
                   WHERE conname = '${prefix}occupancy_no_overlap'
                     AND conrelid = to_regclass('${prefix}occupancy')) THEN
        ALTER TABLE ${prefix}occupancy ADD CONSTRAINT ${prefix}occupancy_no_overlap
            EXCLUDE USING gist (tenant_id WITH =, resource_kind WITH =, resource_id WITH =,
                                tstzrange(starts_at, ends_at) WITH &&)
            WHERE (active);
    END IF;
END
$$;
