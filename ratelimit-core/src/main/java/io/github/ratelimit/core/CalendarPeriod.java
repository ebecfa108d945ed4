package io.github.ratelimit.core;

import io.github.ratelimit.core.internal.Messages;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A calendar period in a time zone: a day (from midnight), an ISO week (from Monday midnight) or a month (from midnight
 * on the 1st), as the zone's rules have it (daylight saving time, month lengths, leap years, from {@code java.time}). A
 * limit counted per calendar period (a quota: 1,000 calls a month) starts afresh at each period's start; which period a
 * call falls in is chosen by the Redis server's clock.
 *
 * @param unit the period
 * @param zone the time zone whose midnight starts it
 */
public record CalendarPeriod(Unit unit, ZoneId zone) {

    /** The calendar periods a quota may count per. */
    public enum Unit {
        DAY,
        WEEK,
        MONTH
    }

    public CalendarPeriod {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(zone, "zone");
    }

    /** A period in UTC. */
    public static CalendarPeriod of(Unit unit) {
        return new CalendarPeriod(unit, ZoneId.of("UTC"));
    }

    /**
     * Parses a period as annotations and properties write it: {@code day}, {@code week} or {@code month} (any case), in
     * the zone {@code zone} (a region such as {@code Europe/Berlin} or an offset; empty or null for UTC). Throws
     * {@link IllegalArgumentException} naming what is wrong.
     */
    public static CalendarPeriod parse(String period, @Nullable String zone) {
        Unit unit;
        try {
            unit = Unit.valueOf(String.valueOf(period).trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "period must be day, week or month, but was '" + Messages.printable(String.valueOf(period)) + "'");
        }
        if (zone == null || zone.isBlank()) {
            return of(unit);
        }
        try {
            return new CalendarPeriod(unit, ZoneId.of(zone.trim()));
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("zone must be a time zone such as UTC or Europe/Berlin, but was '"
                    + Messages.printable(zone) + "': " + e.getMessage());
        }
    }

    /**
     * {@link #parse} for an optional period, as annotations and properties leave it out: null for a null or blank
     * period; a zone given without a period is an error.
     */
    public static @Nullable CalendarPeriod parseIfGiven(@Nullable String period, @Nullable String zone) {
        if (period == null || period.isBlank()) {
            if (zone != null && !zone.isBlank()) {
                throw new IllegalArgumentException("zone '" + Messages.printable(zone) + "' is given without a period");
            }
            return null;
        }
        return parse(period, zone);
    }

    /** The start of the period that {@code instant} falls in. */
    public Instant startOf(Instant instant) {
        ZonedDateTime at = instant.atZone(zone);
        LocalDate day = at.toLocalDate();
        LocalDate first =
                switch (unit) {
                    case DAY -> day;
                    case WEEK -> day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
                    case MONTH -> day.withDayOfMonth(1);
                };
        return first.atStartOfDay(zone).toInstant();
    }

    /** The start of the period after the one that starts at {@code start}. */
    public Instant next(Instant start) {
        LocalDate first = start.atZone(zone).toLocalDate();
        LocalDate following =
                switch (unit) {
                    case DAY -> first.plusDays(1);
                    case WEEK -> first.plusWeeks(1);
                    case MONTH -> first.plusMonths(1);
                };
        return following.atStartOfDay(zone).toInstant();
    }

    /**
     * The starts of four periods, epoch ms: the one before {@code instant}'s, {@code instant}'s, and the two after it.
     * A decision is given them, and the Redis server's clock chooses among the three periods they bound.
     */
    public long[] boundsAround(Instant instant) {
        Instant current = startOf(instant);
        Instant previous = startOf(current.minusMillis(1));
        Instant next = next(current);
        return new long[] {
            previous.toEpochMilli(),
            current.toEpochMilli(),
            next.toEpochMilli(),
            next(next).toEpochMilli()
        };
    }

    /**
     * The longest the period can be (a day of 25 hours when daylight saving time ends; a month of 31 days and an
     * hour): what an instance counting in its own memory, while Redis is away, takes as the window.
     */
    public Duration longest() {
        return switch (unit) {
            case DAY -> Duration.ofHours(25);
            case WEEK -> Duration.ofDays(7).plusHours(1);
            case MONTH -> Duration.ofDays(31).plusHours(1);
        };
    }

    /**
     * The period's usual length (a day of 24 hours, a week of 7 days, a month of 30 days): what a window-shaped field
     * such as the RateLimit-Policy's {@code w} says of it; the time to its real end is told apart.
     */
    public Duration usual() {
        return switch (unit) {
            case DAY -> Duration.ofDays(1);
            case WEEK -> Duration.ofDays(7);
            case MONTH -> Duration.ofDays(30);
        };
    }

    /** As properties write it: {@code month in Europe/Berlin}. */
    @Override
    public String toString() {
        return unit.name().toLowerCase(Locale.ROOT) + " in " + zone.getId();
    }
}
