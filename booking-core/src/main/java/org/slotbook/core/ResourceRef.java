package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/** One coach, room or student, as the conflict check sees it. Ordered by kind, then id in code point order ({@link Identifier#compareCodePoints}). */
public record ResourceRef(ResourceKind kind, String id) implements Comparable<ResourceRef> {
    public ResourceRef {
        Checks.notNull("kind", kind);
        Checks.id("id", id);
    }

    public static ResourceRef of(CoachId coach) {
        return new ResourceRef(ResourceKind.COACH, Checks.notNull("coachId", coach).value());
    }

    public static ResourceRef of(RoomId room) {
        return new ResourceRef(ResourceKind.ROOM, Checks.notNull("roomId", room).value());
    }

    public static ResourceRef of(StudentId student) {
        return new ResourceRef(ResourceKind.STUDENT, Checks.notNull("studentId", student).value());
    }

    @Override
    public int compareTo(ResourceRef other) {
        int byKind = kind.compareTo(other.kind);
        return byKind != 0 ? byKind : Identifier.compareCodePoints(id, other.id);
    }

    @Override
    public String toString() {
        return kind + ":" + id;
    }
}
