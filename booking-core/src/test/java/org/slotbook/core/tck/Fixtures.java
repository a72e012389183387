package org.slotbook.core.tck;

import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slotbook.core.CoachId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;

/** Ids, seeds and time helpers shared by the contract suites. */
public final class Fixtures {
    /** System property that fixes the seed of every randomized test. */
    public static final String SEED_PROPERTY = "slotbook.seed";

    private Fixtures() {
    }

    /** A tenant no other test (or earlier run on the same server) has used. */
    public static TenantId tenant() {
        return TenantId.of("t-" + shortRandom());
    }

    public static SlotId slot() {
        return SlotId.of("slot-" + shortRandom());
    }

    public static CoachId coach() {
        return CoachId.of("coach-" + shortRandom());
    }

    public static RoomId room() {
        return RoomId.of("room-" + shortRandom());
    }

    public static StudentId student() {
        return StudentId.of("student-" + shortRandom());
    }

    /** 22 random characters: unique enough for ids, short enough to leave room in a 64-character id. */
    public static String shortRandom() {
        UUID u = UUID.randomUUID();
        return Long.toString(u.getMostSignificantBits() & Long.MAX_VALUE, 36)
                + Long.toString(u.getLeastSignificantBits() & 0xffffffL, 36);
    }

    /**
     * A seeded random for a randomized test: the seed comes from {@code -Dslotbook.seed} when set,
     * otherwise it is fresh; either way it is printed so a failure can be replayed.
     */
    public static Random random(String test) {
        Long fixed = Long.getLong(SEED_PROPERTY);
        long seed = fixed != null ? fixed : ThreadLocalRandom.current().nextLong();
        System.out.println("[slotbook] " + test + " seed=" + seed + " (replay with -D" + SEED_PROPERTY + "=" + seed
                + ")");
        return new Random(seed);
    }

    /** A whole hour near now, so that sessions built on it lie in the near future. */
    public static Instant nextHour(Instant now) {
        return now.plus(Duration.ofHours(2)).truncatedTo(java.time.temporal.ChronoUnit.HOURS);
    }
}
