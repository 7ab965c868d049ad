package comm

import "strconv"

// Tasks returns how many processes the launcher started for this program,
// as its environment says, and the variable that says it: srun's
// SLURM_STEP_NUM_TASKS (inside a job step), mpirun's
// OMPI_COMM_WORLD_SIZE, or a PMI launcher's PMI_SIZE; 1 and "" when none
// says more. A run whose MPI communicator has fewer ranks than this was
// launched without the MPI wiring (srun without --mpi=pmix, or a binary
// built without MPI): each process would run the whole job alone.
func Tasks(getenv func(string) string) (int, string) {
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"} {
		if n, err := strconv.Atoi(getenv(v)); err == nil && n > 1 {
			return n, v
		}
	}
	return 1, ""
}
