/**
 * An example Spring Boot booking service over the starter.
 */
@NullMarked
package org.slotbook.examples.service;

import org.jspecify.annotations.NullMarked;
