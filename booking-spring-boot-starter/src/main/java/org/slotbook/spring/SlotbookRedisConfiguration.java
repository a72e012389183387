package org.slotbook.spring;

import java.net.URI;
import java.time.Duration;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.redis.RedisSeatReservation;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * The Redis seat gate, with a Jedis pool of its own, when {@code slotbook.redis.url} is set or Spring
 * Boot has Redis connection details ({@code spring.data.redis.*}); off with {@code slotbook.redis.enabled=false}.
 * Only the Jedis API common to Jedis 6, 7 and 8 is used.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {"org.slotbook.redis.RedisSeatReservation", "redis.clients.jedis.UnifiedJedis"})
@ConditionalOnProperty(prefix = "slotbook.redis", name = "enabled", matchIfMissing = true)
@Conditional(SlotbookRedisConfiguration.RedisConfigured.class)
class SlotbookRedisConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(name = "slotbookJedis")
    UnifiedJedis slotbookJedis(SlotbookProperties properties, ObjectProvider<RedisConnectionDetails> details) {
        SlotbookProperties.Redis redis = properties.redis();
        int timeout = Math.toIntExact(redis.timeout().toMillis());
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeout).socketTimeoutMillis(timeout).clientName("slotbook");
        HostAndPort address;
        if (redis.url() != null && !redis.url().isBlank()) {
            URI uri = URI.create(redis.url());
            if (uri.getHost() == null) {
                throw new IllegalArgumentException("slotbook.redis.url must look like redis://host:port, got '"
                        + redis.url() + "'");
            }
            address = new HostAndPort(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort());
            String userInfo = uri.getUserInfo();
            if (userInfo != null) {
                int colon = userInfo.indexOf(':');
                if (colon < 0) {
                    config.password(userInfo);
                } else {
                    if (colon > 0) {
                        config.user(userInfo.substring(0, colon));
                    }
                    config.password(userInfo.substring(colon + 1));
                }
            }
            String path = uri.getPath();
            if (path != null && path.length() > 1) {
                config.database(Integer.parseInt(path.substring(1)));
            }
            config.ssl("rediss".equalsIgnoreCase(uri.getScheme()));
        } else {
            RedisConnectionDetails boot = details.getObject();
            RedisConnectionDetails.Standalone standalone = boot.getStandalone();
            if (standalone == null) {
                throw new IllegalStateException("Spring Boot's Redis connection is not a standalone server: set"
                        + " slotbook.redis.url, or define a SeatReservation bean (RedisSeatReservation over a"
                        + " cluster client)");
            }
            address = new HostAndPort(standalone.getHost(), standalone.getPort());
            config.database(standalone.getDatabase());
            if (boot.getUsername() != null) {
                config.user(boot.getUsername());
            }
            if (boot.getPassword() != null) {
                config.password(boot.getPassword());
            }
        }
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(redis.poolSize());
        pool.setMaxIdle(redis.poolSize());
        pool.setMaxWait(redis.timeout());
        return new UnifiedJedis(new PooledConnectionProvider(address, config.build(), pool), 1,
                redis.timeout().plus(Duration.ofMillis(1)));
    }

    @Bean
    @ConditionalOnMissingBean(SeatReservation.class)
    RedisSeatReservation slotbookGate(UnifiedJedis slotbookJedis, SlotbookProperties properties,
                                      ObjectProvider<SlotbookGateCustomizer> customizers) {
        int lanes = properties.redis().pipelineLanes();
        if (lanes < 0 || lanes > RedisSeatReservation.MAX_PIPELINE_LANES) {
            throw new IllegalArgumentException("slotbook.redis.pipeline-lanes must be between 0 and "
                    + RedisSeatReservation.MAX_PIPELINE_LANES + ", got " + lanes);
        }
        RedisSeatReservation.Builder builder = RedisSeatReservation.builder(slotbookJedis)
                .keyPrefix(properties.redis().keyPrefix()).pipelineLanes(lanes);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    /** {@code slotbook.redis.url} is set, or Spring Boot has Redis connection details. */
    static class RedisConfigured extends AnyNestedCondition {
        RedisConfigured() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnProperty(prefix = "slotbook.redis", name = "url")
        static class Url {
        }

        @ConditionalOnBean(type = "org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails")
        static class BootRedis {
        }
    }
}
