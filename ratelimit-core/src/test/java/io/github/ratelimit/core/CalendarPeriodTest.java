package io.github.ratelimit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CalendarPeriod.Unit;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** The periods' starts come from java.time and the zone's rules; bad input is refused naming what was wrong. */
class CalendarPeriodTest {

    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    static long at(String local, ZoneId zone) {
        return LocalDateTime.parse(local).atZone(zone).toInstant().toEpochMilli();
    }

    @Test
    void fourMonthStartsAroundAnInstantInItsZone() {
        CalendarPeriod month = new CalendarPeriod(Unit.MONTH, BERLIN);

        long[] bounds = month.boundsAround(Instant.ofEpochMilli(at("2028-02-29T12:00", BERLIN)));

        assertThat(bounds)
                .containsExactly(
                        at("2028-01-01T00:00", BERLIN),
                        at("2028-02-01T00:00", BERLIN),
                        at("2028-03-01T00:00", BERLIN),
                        at("2028-04-01T00:00", BERLIN));
    }

    @Test
    void daysOfTwentyThreeAndTwentyFiveHoursWhenClocksChange() {
        CalendarPeriod day = new CalendarPeriod(Unit.DAY, BERLIN);

        long[] spring = day.boundsAround(Instant.ofEpochMilli(at("2027-03-28T12:00", BERLIN)));
        long[] autumn = day.boundsAround(Instant.ofEpochMilli(at("2027-10-31T12:00", BERLIN)));

        assertThat(spring[2] - spring[1]).isEqualTo(Duration.ofHours(23).toMillis());
        assertThat(autumn[2] - autumn[1]).isEqualTo(Duration.ofHours(25).toMillis());
    }

    @Test
    void anIsoWeekStartsOnMonday() {
        CalendarPeriod week = CalendarPeriod.parse("WEEK", "");

        long[] bounds = week.boundsAround(Instant.parse("2027-01-03T23:59:59Z")); // a Sunday

        assertThat(bounds[1]).isEqualTo(Instant.parse("2026-12-28T00:00:00Z").toEpochMilli());
        assertThat(bounds[2]).isEqualTo(Instant.parse("2027-01-04T00:00:00Z").toEpochMilli());
    }

    @Test
    void badPeriodsAndZonesAreNamed() {
        assertThatThrownBy(() -> CalendarPeriod.parse("fortnight", null))
                .hasMessageContaining("period must be day, week or month, but was 'fortnight'");
        assertThatThrownBy(() -> CalendarPeriod.parse("month", "Mars/Olympus"))
                .hasMessageContaining("zone must be a time zone")
                .hasMessageContaining("Mars/Olympus");
        assertThat(CalendarPeriod.parseIfGiven(" ", null)).isNull();
        assertThatThrownBy(() -> CalendarPeriod.parseIfGiven("", "Europe/Berlin"))
                .hasMessageContaining("zone 'Europe/Berlin' is given without a period");
    }

    @Test
    void aCalendarQuotaIsAFixedCountAndItsWindowTheLongestPeriod() {
        RateLimit quota = RateLimit.of("q", Algorithm.FIXED_WINDOW, 3, 1).inCalendar(CalendarPeriod.of(Unit.MONTH));

        assertThat(quota.window()).isEqualTo(Duration.ofDays(31).plusHours(1));
        assertThatThrownBy(
                        () -> RateLimit.of("q", Algorithm.TOKEN_BUCKET, 3, 1).inCalendar(CalendarPeriod.of(Unit.DAY)))
                .hasMessageContaining("use FIXED_WINDOW");
    }

    @Test
    void aShareGivesACeilingAndMayNotLeaveNothing() {
        RateLimit budget = RateLimit.of("fleet", Algorithm.SLIDING_WINDOW, 10, 1_000);

        assertThat(budget.withShare(0.6).ceiling()).isEqualTo(6);
        assertThat(budget.withShare(0.7).ceiling()).isEqualTo(7);
        assertThat(budget.ceiling()).isEqualTo(10);
        assertThatThrownBy(() -> budget.withShare(0.05)).hasMessageContaining("leaves less than one unit");
        assertThatThrownBy(() -> budget.withShare(1.5)).hasMessageContaining("share must be above 0 and at most 1");
        assertThatThrownBy(() -> budget.withPenalty(Duration.ofMillis(-1))).hasMessageContaining("penalty");
        assertThatThrownBy(() -> LimitRequest.of(budget.withShare(0.6), "x", 7)).hasMessageContaining("the limit 6");
    }
}
