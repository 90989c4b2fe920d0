/**
 * The Inbox Spring Boot starter: one dependency that brings the auto-configuration ({@code
 * inbox-spring-boot-autoconfigure}), the JDBC store ({@code inbox-jdbc}) and the Micrometer meters
 * ({@code inbox-micrometer}).
 *
 * <p>It has no code of its own, as Spring Boot starters do not: this package exists so the starter
 * ships a sources and a Javadoc jar like every other published module. The application brings its
 * {@code DataSource} and JDBC driver, and optionally Actuator and Spring for Apache Kafka; what is
 * configured then is described in the auto-configuration module and in the README's Spring Boot
 * section.
 */
package dev.archlab.inbox.spring.boot.starter;
