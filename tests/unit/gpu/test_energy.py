"""Energy per launch from a counter that steps, on CPU stand-ins (nothing measured)."""

import time

import pytest

from nsightflow.gpu import energy as E


class SteppingMeter:
    """A counter that steps every ``step_s`` of ``clock`` by ``watts * step_s``."""

    reason = ""
    ok = True

    def __init__(self, watts: float, step_s: float = 0.01, clock=time.perf_counter):
        self.watts, self.step_s, self.clock = watts, step_s, clock
        self.start = clock()

    def read_mj(self) -> int:
        steps = int((self.clock() - self.start) / self.step_s)
        return round(steps * self.step_s * self.watts * 1000)


class TickingClock:
    """A host clock that moves 0.1 ms per reading: steps land where they would on an
    idle host, whatever else the machine runs (the real clock stalls under load)."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 1e-4
        return self.now


class CountingStream:
    """Launches that each take ``us`` of GPU time on a clock the events read."""

    def __init__(self, us: float) -> None:
        self.us, self.count = us, 0

    def launch(self) -> None:
        self.count += 1

    def event(self):
        stream = self

        class Event:
            at = stream.count

            def query(self) -> bool:
                return True

            def synchronize(self) -> None:
                pass

            def time_till(self, other) -> float:
                return (other.at - self.at) * stream.us / 1000.0

        return Event()


def test_window_power_spans_first_to_last_step():
    assert E.window_power([(1.0, 1000), (1.1, 31_000), (1.2, 61_000)]) == (
        pytest.approx(0.2),
        pytest.approx(300.0),
    )


def test_energy_per_launch_is_power_times_the_streams_time_per_launch(monkeypatch):
    monkeypatch.setattr(E, "WARM_S", 0.0)
    clock = TickingClock()
    monkeypatch.setattr(E, "time", clock)
    stream = CountingStream(us=20.0)
    out = E.measure_energy(
        SteppingMeter(300.0, clock=clock.perf_counter),
        E.Stream(stream.launch, stream.event),
        20.0,
    )
    assert out["status"] == "ok"
    assert out["steps"] == E.ENERGY_STEPS
    assert out["power_w"] == pytest.approx(300.0, rel=0.25)  # host-timed steps
    assert out["per_launch_us"] == pytest.approx(20.0)
    assert out["j_per_launch"] == pytest.approx(out["power_w"] * 20e-6)
    assert out["busy"] == pytest.approx(1.0)
    assert out["launches"] == stream.count


def test_a_meter_without_a_counter_says_why():
    class Missing:
        ok, reason = False, "this GPU has no NVML total-energy counter (Not Supported)"

    stream = CountingStream(us=20.0)
    out = E.measure_energy(Missing(), E.Stream(stream.launch, stream.event), 20.0)
    assert out == {"status": "not_recorded", "message": Missing.reason}
    assert stream.count == 0  # nothing ran
    fields = E.row_fields(out, {"sm_clock_mhz": 1980})
    assert "energy_j_per_launch" not in fields
    assert fields["energy"]["status"] == "not_recorded"


def test_a_counter_that_never_moves_is_not_read_as_energy(monkeypatch):
    monkeypatch.setattr(E, "STEP_WAIT_S", 0.05)
    stream = CountingStream(us=5.0)
    still = SteppingMeter(0.0)
    out = E.measure_energy(still, E.Stream(stream.launch, stream.event), 5.0)
    assert out["status"] == "not_recorded"
    assert "did not move" in out["message"]


def test_the_nvml_meter_says_why_without_nvml(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pynvml(name, *args, **kwargs):
        if name == "pynvml":
            raise ImportError("no pynvml")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pynvml)
    meter = E.EnergyMeter()
    assert not meter.ok and "nvidia-ml-py" in meter.reason
    meter.close()
