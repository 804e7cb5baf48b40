from simtenant.grader import grade


def test_oracle_scores_one(start_episode):
    from simtenant.agents import oracle

    episode = start_episode()
    oracle(episode)
    episode.close()
    assert grade(episode.path).reward == 1.0
