extension LivenessSession {
    /// For live sources: when no frame has arrived for `stall` wall-clock
    /// seconds, media time is extrapolated from the last frame by the wall
    /// clock, so that the overtime timer fires even if the camera stops.
    func startWatchdog(after stall: Double) {
        let period = max(0.02, min(stall, 1.0) / 4)
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(period))
                guard let self, self.watchdogTick(stall: stall) else { return }
            }
        }
        state.withLock { $0.watchdog = task }
    }

    /// Returns false once the session is closed.
    private func watchdogTick(stall: Double) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            guard state.machine.phase.isActive, let base = state.watchdogBase else { return true }
            let elapsed = ContinuousClock.now - base.wall
            guard elapsed >= .seconds(stall) else { return true }
            let (seconds, attoseconds) = elapsed.components
            let estimate = base.media + MediaTime(nanoseconds: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            let flow = state.machine.advance(to: estimate)
            if !flow.isEmpty {
                logger.notice("watchdog: no frame for \(elapsed), media time extrapolated")
            }
            deliver(flow, state: &state)
            return true
        }
    }
}
