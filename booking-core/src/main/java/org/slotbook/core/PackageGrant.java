package org.slotbook.core;

import java.time.Instant;
import java.util.Set;
import org.slotbook.core.internal.Checks;

/**
 * A package of lessons to grant a student ({@link BookingEngine#grantPackage}): {@code credits} (1..10000)
 * for sessions starting within {@code [validFrom, validUntil)}, of the class types named (empty: any
 * session; at most 20 types, each an id-like text of at most 32 characters without a comma). Granting the same package
 * id again is idempotent.
 */
public record PackageGrant(PackageId packageId, StudentId studentId, int credits, Instant validFrom,
                           Instant validUntil, Set<String> classTypes) {
    public static final int MAX_CREDITS = 10_000;
    public static final int MAX_CLASS_TYPES = 20;

    public PackageGrant {
        Checks.notNull("packageId", packageId);
        Checks.notNull("studentId", studentId);
        Checks.between("credits", credits, 1, MAX_CREDITS);
        validFrom = Checks.micros("validFrom", validFrom);
        validUntil = Checks.micros("validUntil", validUntil);
        if (!validFrom.isBefore(validUntil)) {
            throw new InvalidInputException("validFrom " + validFrom + " must be before validUntil " + validUntil);
        }
        Checks.notNull("classTypes", classTypes);
        if (classTypes.size() > MAX_CLASS_TYPES) {
            throw new InvalidInputException("classTypes must name at most " + MAX_CLASS_TYPES + " types, got "
                    + classTypes.size());
        }
        for (String type : classTypes) {
            Checks.classType("classType", type);
        }
        classTypes = Set.copyOf(classTypes);
    }

    /** A package of {@code credits} for any session starting within {@code [validFrom, validUntil)}. */
    public static PackageGrant of(PackageId packageId, StudentId studentId, int credits, Instant validFrom,
                                  Instant validUntil) {
        return new PackageGrant(packageId, studentId, credits, validFrom, validUntil, Set.of());
    }

    /** This grant for sessions of these class types only. */
    public PackageGrant forClassTypes(String... types) {
        return new PackageGrant(packageId, studentId, credits, validFrom, validUntil, Set.of(types));
    }
}
