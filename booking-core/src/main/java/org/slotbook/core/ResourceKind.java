package org.slotbook.core;

/** The kinds of resource that can never be in two overlapping sessions at once. */
public enum ResourceKind {
    COACH,
    ROOM,
    STUDENT
}
